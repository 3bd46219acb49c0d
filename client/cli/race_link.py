"""`--race ID_OR_LINK` for the commands that fetch a finished race (`replay`, `verify`,
`analyze`), read one way: a race's link (the browser's address of a race, its replay or its
result) names its server and, for a private race, its invite; a bare id is looked up on `--url`,
else on the default server, as `solrace play` and `watch` do.
`replay` took links while `verify` and `analyze` looked the whole link up as an id ("There is
no race http://… on this server"). And a refused fetch in the three commands' words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from client import cli

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
