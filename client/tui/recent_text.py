"""What the "Your races" screen writes (docs/protocol.md §9 `recent`): a row per race of
yours that ended, newest first, and the highlighted race's details with how to view it move
by move (Enter there, or `solrace replay`) and the commands that re-play and check it.
Plain functions of the wire dicts, no terminal."""

from __future__ import annotations

import shlex
import time
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from client.cli import DEFAULT_URL
from protocol.rules.facts import game_name

from .ratings_text import change_text, signed
from .text import duration, plural

#: Races asked for: every race the server keeps for a player (its RECENT_CAP).
RECENT_LIMIT = 50

#: The table's columns: whole at 80 columns (a long game name on two lines). The cards home
#: and the moves are in the highlighted race's details, right under it; the rating column
#: (an account's) has a rated race's change, the details its ratings before and after.
COLUMNS = ("when", "game", "kind", "place", "result", "time", "rating")

#: `kind` in words (docs/protocol.md §9: the first that fits of these).
KIND_TEXTS = {
    "daily": "daily",
    "arena": "arena",
    "bot": "vs bot",
    "quick": "quick match",
    "private": "private",
    "public": "public",
}

#: A player's `status` at the end in words (`finished` is a declared finish).
RESULT_TEXTS = {"won": "won", "finished": "finished", "timeout": "time up"}

EMPTY_TEXT = (
    "No race of yours has ended yet: every race you play to its end shows here, "
    "newest first (the server keeps your latest 50)."
)
#: Under the details: how to reach what they say (a rated race's run past their box at 80x24).
#: Esc is on the Back button; with it the row did not fit 80 columns.
KEYS_TEXT = "↑↓: a race · Enter: replay · a: analysis · shift+↑↓: scroll details"
GUEST_NOTE = "as a guest, your list lasts as long as your guest session"


def when_text(at: int | None, now: int) -> str:
    """How long ago a race ended: ``just now``, ``12 min ago``, ``3 h ago``, ``2 d ago``,
    then its UTC date (``2026-11-30``)."""
    if not at:
        return "?"
    ago_s = max(0, now - at) // 1000
    if ago_s < 60:
        return "just now"
    if ago_s < 3600:
        return f"{ago_s // 60} min ago"
    if ago_s < 86_400:
        return f"{ago_s // 3600} h ago"
    if ago_s < 30 * 86_400:
        return f"{ago_s // 86_400} d ago"
    return utc_date(at)


def utc_date(at: int) -> str:
    """The UTC day of a server time (ms), as the daily challenges name days."""
    return time.strftime("%Y-%m-%d", time.gmtime(at / 1000))


#: `kind` in the table, where "quick match" took the room of a column at 80 columns.
SHORT_KIND_TEXTS = {"quick match": "quick"}


def kind_text(e: dict[str, Any], short: bool = False) -> str:
    kind = str(e.get("kind") or "")
    if kind == "private" and e.get("players") == 1:
        return "practice"  # a private race of one seat: "Practice alone" (menu) makes them
    text = KIND_TEXTS.get(kind, kind or "?")
    return SHORT_KIND_TEXTS.get(text, text) if short else text


def place_text(e: dict[str, Any]) -> str:
    """``1 of 3``; ``solo`` for a race of one (a daily attempt, a practice race)."""
    players = int(e.get("players") or 0)
    if players <= 1:
        return "solo"
    return f"{e.get('rank', '?')} of {players}"


def result_text(e: dict[str, Any]) -> str:
    status = str(e.get("status") or "")
    return RESULT_TEXTS.get(status, status or "?")


def time_cell(e: dict[str, Any]) -> str:
    """The time to the win or the declared finish; ``—`` for a clock that ran out."""
    return duration(e.get("time_ms"))


def rating_cell(e: dict[str, Any]) -> str:
    """A rated race's rating change (``+16``; the details say the ratings before and after);
    ``pending`` until it is rated; nothing for a casual race."""
    if not e.get("rated"):
        return ""
    before, after = e.get("before"), e.get("after")
    if not before or not after:
        return "pending"
    return signed(int(after.get("rating") or 0) - int(before.get("rating") or 0))


def recent_row(e: dict[str, Any], now: int) -> tuple[str, ...]:
    """One race as the table's cells, in the order of :data:`COLUMNS`."""
    return (
        when_text(e.get("at"), now),
        game_name(str(e.get("game", ""))),
        kind_text(e, short=True),
        place_text(e),
        result_text(e),
        time_cell(e),
        rating_cell(e),
    )


def title_text(races: list[dict[str, Any]], logged_in: bool) -> str:
    """The screen's heading: how many races, and how long a guest's list lasts."""
    head = "[b]Your races[/b] — newest first"
    if races:
        head += f" · {plural(len(races), 'race')}"
    if not logged_in:
        head += f" · {GUEST_NOTE}"
    return head


def command_units(verb: str, server_url: str | None, race: str, as_me: str = "") -> list[str]:
    """``solrace VERB --url URL --race ID [--token-file [PATH]]`` as its units, each flag with
    its value: without ``--url`` when it is the default server's (the commands' own default),
    ``ws://HOST:PORT/ws`` to fill in when the server is not known."""
    units = [f"solrace {verb}"]
    if server_url != DEFAULT_URL:
        units.append(f"--url {server_url or 'ws://HOST:PORT/ws'}")
    units.append(f"--race {race}")
    if as_me:
        units.append(as_me.strip())
    return units


def shell_lines(units: list[str], width: int | None) -> list[str]:
    """A command on rows of at most ``width`` cells, for copying: whole on one row if it fits,
    else broken between its arguments only, each row but the last ending in a shell's ``\\``
    continuation (the next indented). At 80 columns the terminal wrapped it mid-argument."""
    whole = " ".join(units)
    if width is None or cell_len(whole) <= width:
        return [whole]
    lines: list[str] = []
    line = units[0]
    for unit in units[1:]:
        if cell_len(f"{line} {unit}") + 2 <= width:  # room for the " \\" if another row follows
            line = f"{line} {unit}"
        else:
            lines.append(f"{line} \\")
            line = f"  {unit}"
    return [*lines, line]


def detail_text(
    e: dict[str, Any],
    server_url: str | None,
    now: int,
    token_file: str | None = None,
    width: int | None = None,
) -> Text:
    """The highlighted race: what it was, your result, your rating change, how to view it move
    by move (Enter on it, or `solrace replay`), and the commands that re-play it from its
    revealed seed and check it (`solrace verify`), and show where a win was lost (`solrace
    analyze`): each on rows of its own, ``width`` cells at most (:func:`shell_lines`), so that
    it is copied whole. `token_file`: where this terminal keeps its token, when not the
    default (a private race's commands ask as you, with that file)."""
    race = str(e.get("race", "?"))
    t = Text()
    kind = kind_text(e) + (f" {e['arena']}" if e.get("kind") == "arena" and e.get("arena") else "")
    t.append(f"race {race}", style="bold")
    t.append(
        f" · {game_name(str(e.get('game', '')))} · {kind}" + (" · rated" if e.get("rated") else "") + "\n"
    )
    place = place_text(e)
    line = f"{place if place == 'solo' else 'place ' + place} · {result_text(e)}"
    if e.get("time_ms") is not None:
        line += f" at {duration(e.get('time_ms'))}"
    line += (
        f" · {e.get('home', 0)}/{e.get('total', '?')} cards home · {plural(int(e.get('moves') or 0), 'move')}"
    )
    if e.get("at"):
        line += f" · ended {when_text(e.get('at'), now)}"
    t.append(line + "\n")
    if e.get("rated"):
        before, after = e.get("before"), e.get("after")
        if before and after:
            t.append(f"rating {change_text(before, after)}\n", style="bold")
        else:
            t.append("rating: not updated yet\n", style="dim")
    # A private race (of any kind: one with a bot is a `bot` race) is replayed by its players
    # only: the commands ask as you, with this terminal's token file.
    private = bool(e.get("private")) or e.get("kind") == "private"
    as_me = (f" --token-file {shlex.quote(token_file)}" if token_file else " --token-file") if private else ""
    # Its day: the entry's `date` (an attempt cut to the close ends on the next day), else its end's.
    day = e.get("date") or (utc_date(int(e["at"])) if e.get("at") else "")
    sealed = e.get("kind") == "daily" and bool(day) and day >= utc_date(now)
    if sealed:  # Enter is refused until the close
        t.append(
            "a daily attempt: its moves stay sealed until the day closes (00:00 UTC); then ", style="dim"
        )
        t.append("these: view it, check it, where a win was lost:\n", style="dim")
    else:
        t.append("Enter views it here; these: view it, check it, where a win was lost:\n", style="dim")
    commands = [command_units(verb, server_url, race, as_me) for verb in ("replay", "verify", "analyze")]
    t.append("\n".join(line for units in commands for line in shell_lines(units, width)))
    return t


def watched_end_text(url: str, race: str, width: int | None = None) -> str:
    """Under a watched race's final ranking: the commands that replay it move by move and show
    where each win was lost (a spectator had no word of either; "Your races" lists only
    races one played), each on rows of its own of ``width`` cells (:func:`shell_lines`: at 80
    columns they wrapped mid-argument)."""
    commands = [command_units(verb, url, race) for verb in ("replay", "analyze")]
    lines = [line for units in commands for line in shell_lines(units, width)]
    return "\n".join(["these replay it move by move and show where a win was lost:", *lines])
