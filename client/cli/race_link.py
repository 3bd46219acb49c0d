"""Where the commands that read a finished race (`replay`, `verify`, `analyze`) get its
document: a file (`load`), or a server (`fetch`, with `--url`, `--race`, `--token-file`).

`--race ID_OR_LINK` is read one way: a race's link (the browser's address of a race, its replay or its
result) names its server and, for a private race, its invite; a bare id is looked up on `--url`,
else on the default server, as `solrace play` and `watch` do.
`replay` took links while `verify` and `analyze` looked the whole link up as an id ("There is
no race http://… on this server"). And a refused fetch in the three commands' words."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from client import cli

from . import InputError

if TYPE_CHECKING:
    from client.library import ServerError

#: The flag's help, the same in the three commands.
RACE_HELP = f"the finished race's id (on --url, default {cli.DEFAULT_URL}) or its link"


def race_source(race: str, urls: list[str] | None) -> tuple[list[str], str, str | None]:
    """(the server URLs, the race id, the invite) of ``--race`` and ``--url``: the URLs given,
    else the link's server, else DEFAULT_URL. InputError (one sentence) for a link with no race
    id in it."""
    from client.tui.links import parse_invite, parse_link

    try:
        link_url, race_id = parse_link(race)
    except ValueError as e:
        raise cli.InputError(f"--race: {e}") from None
    servers = list(urls or []) or [link_url or cli.DEFAULT_URL]
    return servers, race_id, parse_invite(race)


def refused_text(e: ServerError, race: str | None, token: str | None) -> str:
    """A refused fetch in words, as `solrace replay` says it (client/tui/replay_text.py), with
    the option that gets past a private race here: it read "the server refused: no-such-race:
    no such race", the code that is for programs first."""
    from client.tui.errors import error_text
    from client.tui.replay_text import refusal_text

    if race is None:  # a daily's
        return f"the server refused: {error_text(str(e.code), e.message or '')}"
    text = refusal_text(str(e.code), race, e.message or "", flags=False)
    if e.code == "private-race" and not token:
        text = text.removesuffix(".") + " (a private race you played in: add --token-file)."
    return text


def load(path: str) -> dict[str, Any]:
    """A replay document from a JSON or MessagePack file ('-' reads stdin)."""
    if path == "-" and sys.stdin is None:  # closed (`<&-`): Python has no stdin object at all
        raise InputError("-: stdin is closed: nothing to read the replay document from")
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    doc: object
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError):
        import msgspec

        try:
            doc = msgspec.msgpack.decode(data)
        except Exception as e:  # noqa: BLE001 - any decoding failure is an input error
            raise InputError(f"{path}: neither JSON nor MessagePack ({e})") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: a replay document is a map, not {type(doc).__name__}")
    return doc


def check_versions(doc: dict[str, Any]) -> None:
    """InputError when the document was dealt or played by other rules than these: its moves
    would re-play differently here (a document without the fields is taken as of these)."""
    from protocol import rules

    for name, ours in (("rules_version", rules.RULES_VERSION), ("deal_version", rules.DEAL_VERSION)):
        theirs = doc.get(name)
        if theirs is not None and theirs != ours:
            raise InputError(f"{name} {theirs!r} is not the one this solrace implements ({ours})")


def utf8_text(value: str) -> str:
    """The argparse type of an option that is hashed, sent or printed (a seed, a fingerprint):
    a byte that is not UTF-8 in it (`$'\\xff'`) reaches Python as a lone surrogate, which gave a
    UnicodeEncodeError traceback there; refused here in one line, as a bad number is."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raw = value.encode("utf-8", "surrogateescape")
        raise argparse.ArgumentTypeError(f"not UTF-8 text: {raw!r}") from None
    return value


async def fetch(
    url: str | list[str],
    *,
    race: str | None = None,
    invite: str | None = None,
    daily: str | None = None,
    date: str | None = None,
    player: str | None = None,
    token: str | None = None,
    name: str = "verifier",
    refusal: Callable[[ServerError], str] | None = None,
) -> dict[str, Any]:
    """Fetch a replay over the protocol with the client library: as a new guest (named `name`),
    or as the player of `token` (a private race may be replayed by its players only), or with a
    private race's `invite`. A refusal is :class:`InputError`, worded by `refusal` if given."""
    import msgspec

    from client.library import ServerError, Unreachable, connect
    from protocol import messages as m

    proof: list[str] | None = None
    try:
        # As the player of `token`, under their own name: `name` would rename a guest (a hello's
        # name is the guest's new one), and "ada" read "replayer" after replaying her race.
        async with connect(url, name=None if token else name, token=token) as c:
            if race is not None:
                reply = await c.replay(race, invite=invite)
            elif daily is not None and date is not None:
                reply = await c.request(m.DailyReplay(game=daily, date=date, player=player))
                # The day's proof (a certified deal's winning line) is in its `daily` reply.
                info = await c.request(m.Daily(game=daily, date=date))
                proof = info.proof
            else:
                raise InputError("fetching needs a race, or a daily's game and date")
    except ServerError as e:
        raise InputError((refusal or partial(refused_text, race=race, token=token))(e)) from None
    except (OSError, ValueError, AttributeError) as e:  # unreachable, closed, a malformed URL
        if isinstance(e, Unreachable):  # in words: its exceptions (ConnectionRefusedError…) told nothing
            raise InputError(f"cannot fetch the replay: {e.plain()}") from None
        where = url if isinstance(url, str) else " or ".join(url)
        raise InputError(f"cannot fetch the replay from {where}: {e}") from None
    out: dict[str, Any] = msgspec.to_builtins(reply)
    out.pop("t", None)
    out.pop("rid", None)
    if daily is not None and proof and "proof" not in out:
        out["proof"], out["par"] = list(proof), len(proof)
    return out


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a replay document comes from: a file, or a server (`--url`, with `--race`...)."""
    parser.add_argument("file", nargs="?", help="replay document, JSON or MessagePack ('-' for stdin)")
    parser.add_argument(
        "--url",
        action="append",
        help="fetch from a server, e.g. ws://127.0.0.1:8765/ws (repeat it for several processes: failover)",
    )


def add_token_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--token-file",
        nargs="?",
        const="",
        metavar="PATH",
        help="with --url: ask as the player of this token file (without PATH: the one `solrace play` "
        "keeps, ~/.config/solrace/token or SOLRACE_TOKEN_FILE), as a private race you played in needs; "
        "by default, as a new guest",
    )


def token_of(args: argparse.Namespace) -> str | None:
    """The token of --token-file, None without the option (InputError if the file holds none)."""
    if args.token_file is None:
        return None
    from client.tui.net import load_token, token_path

    path = token_path(args.token_file or None)
    token = load_token(path)
    if not token:
        raise InputError(f"no token in {path} (solrace play keeps one there once it has connected)")
    return token
