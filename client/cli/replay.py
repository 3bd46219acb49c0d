"""`solrace replay`: a finished race move by move in the terminal.

    solrace replay --url ws://127.0.0.1:8765/ws --race r8a1c…   # fetch its replay, then view it
    solrace replay --race http://HOST:PORT/#race=r8a1c…&invite=…  # a link: its server and invite
    solrace replay --url URL --race ID --token-file              # a private race you played in
    solrace replay --url URL --race ID --invite=SECRET           # a private race by its invite (=: it may start with -)
    solrace replay saved.json --player ada                       # a saved document, from ada's seat

The document is the one `solrace verify` reads (client/cli/verify.py): the server's
`replay` reply (docs/protocol.md §3), fetched with `--url` and `--race` (as a new guest,
or with `--token-file` as the player whose token `solrace play` keeps), or a JSON or
MessagePack file (`solrace verify --save` writes one; a closed daily's `daily_replay`
document works too). Its revealed seed is re-dealt and every player's moves re-played with
the rules engine, then the viewer opens (client/tui/replay_screen.py). A refusal (the race
not finished, a daily attempt sealed until its day closes, a private race, no such race)
is one sentence on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from . import InputError
from .race_link import RACE_HELP, add_source_arguments, add_token_argument, fetch, load, race_source, token_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--race", metavar="ID_OR_LINK", help=RACE_HELP)
    parser.add_argument("--invite", help="with --race: a private race's invite (a link carries it)")
    parser.add_argument(
        "--player",
        help="show this player's moves first (id, name, or place as the viewer numbers them: 1, 2…; "
        "default: the winner)",
    )
    add_token_argument(parser)


async def fetch_replay(
    url: str | list[str],
    race: str,
    *,
    invite: str | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """The server's `replay` reply as a dict, as a new guest or as the player of ``token``;
    a refusal is :class:`InputError` with one sentence naming the options that may get past it."""
    from client.tui.replay_text import refusal_text

    return await fetch(
        url,
        race=race,
        invite=invite,
        token=token,
        name="replayer",
        refusal=lambda e: refusal_text(str(e.code), race, e.message or ""),
    )


async def obtain(args: argparse.Namespace) -> dict[str, Any]:
    """The document the arguments name: fetched (`--race`), else read from the file."""
    if args.race:
        urls, race, invite = race_source(args.race, args.url)
        return await fetch_replay(urls, race, invite=args.invite or invite, token=token_of(args))
    if args.url:
        raise InputError("with --url give --race ID")
    if args.file:
        return load(args.file)
    raise InputError("give a replay file, or --url with --race")


def keys_from_the_terminal() -> None:
    """After a document read from a pipe (`-`), the viewer's keys come from the terminal, as
    a pager's do: stdin is reopened on /dev/tty. No terminal: InputError."""
    if sys.stdin is not None and sys.stdin.isatty():
        return
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise InputError("the viewer needs a terminal for its keys, and there is none") from None
    os.dup2(tty, 0)
    os.close(tty)


def run(args: argparse.Namespace) -> int:
    from client.tui.replay_model import ReplayError, build_replay

    try:
        if args.file and args.race:
            raise InputError("give a replay file or --race, not both")
        doc = asyncio.run(obtain(args))
        replay = build_replay(doc)
        if args.player and replay.find(args.player) is None:
            names = ", ".join(f"{i} {p.name}" for i, p in enumerate(replay.players, 1))
            raise InputError(f"--player: no {args.player!r} in this race (its players: {names})")
        keys_from_the_terminal()
    except (InputError, ReplayError, OSError) as e:
        print(f"solrace replay: {e}", file=sys.stderr)
        return 2
    from client.tui.replay_screen import ReplayApp
    from client.tui.run import run_app

    return int(run_app(ReplayApp(replay, replay.index_of(args.player))) or 0)
