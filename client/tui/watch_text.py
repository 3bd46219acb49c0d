"""The words of `solrace watch`'s race list (client/tui/watch_app.py): plain functions, for
tests."""

from __future__ import annotations

from typing import Any

from protocol.rules.facts import game_name

from .errors import retry_text
from .tables import list_widths, wrap_rows
from .text import clock, marked_name, plural

#: How late a spectator gets the boards when the server does not say (docs/protocol.md §7
#: `SPECTATOR_DELAY`; the welcome's `limits` say the server's own).
SPECTATOR_DELAY_MS = 10_000

#: The race list's columns.
LIST_COLUMNS = ("race", "game", "status", "clock", "players", "watchers")
#: When the row is wider than the window: the players give way first (down to this), then
#: the game (down to this), then the players again; the id, status, clock and count stay whole.
PLAYERS_MIN, GAME_MIN = 12, 10
GIVE_WAY = ((4, PLAYERS_MIN), (1, GAME_MIN), (4, 1))


def race_row(r: dict[str, Any], now: int) -> tuple[str, ...]:
    """One line of the race list, in full (plain function, for tests)."""
    total = r.get("total") or 0
    players = ", ".join(f"{marked_name(p)} {p.get('home', 0)}/{total}" for p in r.get("players") or [])
    status = r.get("status", "")
    if status == "countdown" and r.get("starts_at"):
        when = f"in {max(0, r['starts_at'] - now) / 1000:.0f}s"  # the status says what starts
    elif status == "running" and r.get("deadline"):
        when = clock(r["deadline"] - now) + " left"
    else:
        when = ""
    return (
        r.get("race", ""),
        game_name(r.get("game", "")),
        status,
        when,
        players,
        str(r.get("spectators", 0)),
    )


def race_list(races: list[dict[str, Any]], now: int, width: int) -> tuple[list[int], list[tuple[str, ...]]]:
    """The race list for a table ``width`` cells wide: the column widths and the rows cut to
    them (at 80 columns the players pushed the later columns off the screen); the players go
    on a second line before they are cut (a race of two read "alice 0/156, …" at 80 columns)."""
    rows = [race_row(r, now) for r in races]
    widths = list_widths(rows, width, LIST_COLUMNS, GIVE_WAY)
    return widths, wrap_rows(rows, widths, (4,))


def list_title(count: int, what: str = "") -> str:
    """The race list's title (``what``: " of GAME" when one game is listed). With no race it
    says the list refreshes itself and where races come from: "0 live public race(s) —
    Enter: spectate" over an empty table offered a key with nothing to act on."""
    if not count:
        return f"[b]no live public race{what} now[/b] — one shows here once it starts (solrace play)"
    return f"[b]{plural(count, 'live public race')}{what}[/b] — Enter: spectate"


def boards_delay_text(delay_ms: int, ago_s: float | None) -> str:
    """The line under a watched race's clock while it runs: the bars are live, the boards
    come ``delay_ms`` late (the anti-cheat delay, docs/protocol.md §5), and how old the ones
    shown are (``ago_s``; None: none came yet); whole in 78 columns. A spectator saw bars move
    with no card moved on the boards below, and nothing said why."""
    if delay_ms <= 0:
        head = "bars and boards live"
    else:
        head = f"bars live · boards {retry_text(delay_ms)} behind (anti-cheat)"
    if ago_s is None:
        return head + (" · first ones coming…" if delay_ms > 0 else " · boards: waiting…")
    return f"{head} · these from {max(0.0, ago_s):.0f} s ago"
