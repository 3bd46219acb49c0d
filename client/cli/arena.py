"""`solrace arena`: list arenas, open one: join, withdraw, berserk, follow the live standings,
and play your races.

solrace arena                          # the arena list; Enter on an arena opens it
solrace arena --arena hourly-fours-up-29412480   # open it at once
solrace arena --url ws://a:8765/ws --url ws://b:8765/ws   # failover between processes

The list shows names, not ids (an 80-column terminal has no room for both); an open
arena's header ends with its id, for `--arena`. Once paired, `p` plays the race here:
the race screen of `solrace play` takes the terminal, and when you leave it (ctrl+q, or
`quit` once your game is over) the arena opens again. From another terminal,
`solrace play --race ID` plays it too (the status line names the race).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from client.tui.arena_app import PlayNext

#: Runs the arena app opened on an arena (None: the list): its exit status, and the race
#: its player chose to play (`p`), if any.
ArenaRunner = Callable[[str | None], "tuple[int, PlayNext | None]"]
#: Runs the play app on a race; its exit status.
PlayRunner = Callable[[str], int]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from client.cli.play import add_connection_arguments

    add_connection_arguments(parser)
    parser.add_argument("--arena", metavar="ID", help="open this arena at once")


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors before the app opens (exit 2), as `solrace play` finds them: a --name the
    server refuses showed in the app as "cannot connect: `name`: Expected `str` of length <= 24"."""
    from client.cli.checks import check_connection_arguments

    check_connection_arguments(parser, args)


def arena_loop(run_arena: ArenaRunner, run_play: PlayRunner, arena: str | None) -> int:
    """The arena app, and each race its player chose to play (then the arena again, the one
    the race is of), until the arena app is left without a race to play: its exit status."""
    while True:
        status, chosen = run_arena(arena)
        if chosen is None:
            return status
        run_play(chosen.race)
        arena = chosen.arena


def run(args: argparse.Namespace) -> int:
    from client.cli.play import server_urls
    from client.tui.net import connector
    from client.tui.run import run_app

    urls = server_urls(args, None)
    # each app opens its own session on the same token: the same player, seats and all
    connect = connector(urls, args.name, args.token_file)

    def run_arena(arena: str | None) -> tuple[int, PlayNext | None]:
        from client.tui.arena_app import ArenaApp

        app = ArenaApp(connect, arena=arena)
        status = int(run_app(app) or 0)
        return status, app.play_next

    def run_play(race: str) -> int:
        # as `solrace play --race RACE`
        from client.tui.intent import Intent
        from client.tui.play_app import PlayApp

        play = PlayApp(connect, Intent("resume", race=race), server_url=urls[0], back_to="back to the arena")
        return int(run_app(play) or 0)

    return arena_loop(run_arena, run_play, args.arena)
