"""Arenas in the terminal, as plain functions over the protocol's dicts (docs/protocol.md
§5a): the list's rows, the time left, the standings lines, the arena's header. No
terminal needed to test them; ``arena_app`` draws what they return."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len

from protocol.rules.facts import game_name

from .tables import fit, list_widths, wrap_rows
from .text import clock, marked_name, plural


def time_left(arena: dict[str, Any], now: int) -> str:
    """ "starts in 4:00", "12:30 left", or what the end is at."""
    if now < arena.get("starts", 0):
        return "starts in " + clock(arena["starts"] - now)
    if now < arena.get("ends", 0):
        return clock(arena["ends"] - now) + " left"
    return "final standings" if arena.get("final") else "over: the last races are finishing"


def list_time(arena: dict[str, Any], now: int) -> str:
    """The list's short form of :func:`time_left` (the status column says the rest):
    "in 1:28:10", "12:30 left", "finishing", "final"."""
    if now < arena.get("starts", 0):
        return "in " + clock(arena["starts"] - now)
    if now < arena.get("ends", 0):
        return clock(arena["ends"] - now) + " left"
    return "final" if arena.get("final") else "finishing"


#: The arena list's columns. No id: people read the name; the open arena shows its id.
LIST_COLUMNS = ("arena", "game", "status", "time", "players")
#: The narrowest the name, then the game, get before the other columns are cut.
NAME_MIN, GAME_MIN = 20, 10


def arena_row(arena: dict[str, Any], now: int) -> tuple[str, ...]:
    """One line of the arena list, in full: name, game, status, time, players."""
    return (
        arena.get("name") or arena.get("id", ""),
        game_name(arena.get("game", "")),
        arena.get("status", ""),
        list_time(arena, now),
        str(arena.get("players", 0)),
    )


def arenas_title(count: int) -> str:
    """The arena list's title: "3 arenas — Enter: open…" (it said "3 arena(s)")."""
    return f"[b]{plural(count, 'arena')}[/b] — Enter: open · r: refresh · ctrl+q: quit"


def arena_list(
    arenas: Sequence[dict[str, Any]], now: int, width: int
) -> tuple[list[int], list[tuple[str, ...]]]:
    """The arena list for a table ``width`` cells wide: the column widths and the rows,
    their cells fitted to them: a name or game too long goes on a second line (a
    scheduled arena's name, "Hourly Double Aces and Kings · 20:00 UTC", is read whole at
    80 columns), then is cut."""
    rows = [arena_row(a, now) for a in arenas]
    widths = list_widths(rows, width, LIST_COLUMNS, ((0, NAME_MIN), (1, GAME_MIN), (0, 1)))
    return widths, wrap_rows(rows, widths, (0, 1))


def standing_line(row: dict[str, Any], me: str | None) -> str:
    """``  3. ada        14 pts  5/7 wins  on fire`` (``>`` marks your own row)."""
    mark = ">" if row.get("player") == me else " "
    fire = "  on fire" if row.get("fire") else ""
    return (
        f"{mark}{row.get('rank', 0):>4}. {marked_name(row, 16)} {row.get('points', 0):>4} "
        f"{'pt ' if row.get('points', 0) == 1 else 'pts'}"
        f"  {row.get('wins', 0)}/{row.get('races', 0)} wins{fire}"
    )


def standings_lines(board: dict[str, Any], me: str | None, rows: int | None = None) -> list[str]:
    """The top rows, then (after a gap) the rows around yours that are not in the top. Given
    the ``rows`` the screen has for them, the top gives way first (its lowest rows), then the
    rows around yours, nearest yours last: at 80x24 the top ten and seven rows around yours
    went past the screen's bottom, yours with them."""
    top = list(board.get("top") or [])
    shown = {r.get("player") for r in top}
    rest = [r for r in board.get("around") or [] if r.get("player") not in shown]
    if not top and not rest:
        return ["  nobody joined" if board.get("final") else "  nobody has joined yet"]
    if rows is not None and rest and len(top) + 1 + len(rest) > rows:
        # the rows around yours, kept nearest yours, within all but the top's first and the gap
        room = max(1, rows - 2)
        while len(rest) > room:
            mine = next((i for i, r in enumerate(rest) if r.get("player") == me), len(rest) // 2)
            rest.pop(0 if mine >= len(rest) - 1 - mine else len(rest) - 1)
        top = top[: max(1, rows - 1 - len(rest))]
    lines = [standing_line(r, me) for r in top]
    if rest:
        lines.append("     …")
        lines += [standing_line(r, me) for r in rest]
    return lines


def standings_title(board: dict[str, Any]) -> str:
    what = "Final standings" if board.get("final") else "Standings"
    return f"{what} · {plural(int(board.get('count', 0)), 'player')}"


def winners_line(board: dict[str, Any]) -> str | None:
    """Once final: the podium (the first three places with points), else None."""
    if not board.get("final"):
        return None
    podium = [r for r in board.get("top") or [] if r.get("rank", 99) <= 3 and r.get("points", 0) > 0]
    if not podium:
        return "Winners: nobody scored"
    return "Winners: " + ", ".join(
        f"{r['rank']}. {r.get('name', '')} ({points_text(r.get('points', 0))})" for r in podium
    )


def others_in(board: dict[str, Any], me: str | None) -> int:
    """How many players besides you (``me``) the standings have (joined, withdrawn included)."""
    rows = [*(board.get("top") or []), *(board.get("around") or [])]
    mine = bool(board.get("me")) or any(r.get("player") == me for r in rows)
    return max(0, int(board.get("count") or 0) - (1 if mine else 0))


def joined_text(data: dict[str, Any], now: int, alone: bool = False) -> str:
    """Whether you are in the arena, and what pairs you next: an arena that has not started
    pairs nobody yet (it said "paired whenever free" half an hour before its start), and a
    race needs a second free player (docs/arenas.md §4): it said "paired whenever free" to a
    player ``alone`` in the arena, who was never paired. ``data``'s `race`: yours, on."""
    a = data.get("arena") or {}
    if not data.get("joined"):
        return "not joined"
    if now < a.get("starts", 0):
        return "you are in: paired from its start"
    if a.get("status") == "over" or now >= a.get("ends", now + 1):
        return "you are in: it pairs nobody any more"
    if data.get("race"):
        return "you are in: paired (your race: below)"
    if alone:
        return "you are in, the only player so far: paired once another joins"
    return "you are in: waiting for another player to be free, then paired within seconds"


def joined_said(data: dict[str, Any], now: int, alone: bool = False) -> str:
    """What a join says, by the arena's clock and whether anyone else is in (:func:`joined_text`)."""
    a = data.get("arena") or {}
    if now < a.get("starts", 0):
        return f"joined: you are paired from the arena's start ({time_left(a, now)})"
    if alone:
        return "joined: nobody else is in yet: a race needs two, so you are paired once another joins"
    return "joined: a race needs two: you are paired as soon as another player is free"


#: What berserk does, under the header of an arena that allows it: the header's "berserk
#: allowed" and the keys' "b: berserk" were the first a player read of it, and what it does
#: was said only once paired (docs/arenas.md §2: the race clock halved, +1 point for a win).
BERSERK_RULE = "berserk (b, before your race starts): half your clock, +1 point if you win it"


def berserk_text(data: dict[str, Any], now: int) -> str | None:
    """:data:`BERSERK_RULE` while the arena allows berserk and pairs (or will), else None."""
    a = data.get("arena") or {}
    ended = a.get("status") == "over" or now >= a.get("ends", now + 1)
    return BERSERK_RULE if a.get("berserk") and not ended else None


def arena_keys(berserk: bool) -> str:
    """The status line in an arena: its keys (``b`` only where berserk is allowed)."""
    return "j: join · w: withdraw" + (" · b: berserk" if berserk else "") + " · Esc: back to the list"


def arena_header(data: dict[str, Any], now: int, width: int | None = None, alone: bool = False) -> str:
    """Three lines: the arena's name and game; its seats, clock and time left; whether you
    are in it (:func:`joined_text`) and its id (the one `solrace arena --arena ID` opens: the
    list has no room for it). Given the ``width``, the name is cut so that the first line
    fits it (on one line of a narrow window the header wrapped mid-phrase), and the id goes
    on a fourth line when the third has no room for it."""
    a = data.get("arena") or {}
    minutes = max(1, round(a.get("time_limit_s", 0) / 60))
    joined = joined_text(data, now, alone)
    last = f"{joined} · id {a.get('id', '')}"
    if width is not None and width > 0 and cell_len(last) > width:
        last = f"{joined}\nid {a.get('id', '')}"
    berserk = " · berserk allowed" if a.get("berserk") else ""
    game = game_name(a.get("game", ""))
    name = a.get("name") or a.get("id", "")
    if width is not None and width > 0:
        name = fit(name, max(width - cell_len(game) - 3, NAME_MIN))
    return (
        f"{name} — {game}\n"
        f"{a.get('seats', 2)} seats · {minutes} min races{berserk} · {time_left(a, now)}\n"
        f"{last}"
    )


#: A player's statuses in a race that end their own game (the race may play on without them).
OVER_FOR_ME = ("won", "finished", "timeout")


def paired_line(race: str, running: bool, berserk: bool) -> str:
    """The status line while you have an arena race to play: ``p`` plays it here; before its
    start, ``b`` berserks it where the arena allows it; on a row of its own, the command that
    plays it from another terminal (at 80 columns it wrapped mid-command, after "--race")."""
    elsewhere = f"\nor in another terminal: solrace play --race {race}"
    if running:
        return f"your race {race} is on — p: play it now{elsewhere}"
    offer = " — b: berserk (half the clock, +1 on a win)" if berserk else ""
    return f"paired: race {race} — p: play it now{offer}{elsewhere}"


def points_text(points: int) -> str:
    """``1 pt``, ``3 pts``."""
    return f"{points} pt" if points == 1 else f"{points} pts"


def races_line(data: dict[str, Any]) -> str:
    """Your race being played, your past races' places and points (the latest last), the
    featured race."""
    parts = []
    if data.get("race"):
        parts.append(f"your race: {data['race']}")
    past = data.get("races") or []
    if past:
        places = ", ".join(f"#{r['rank']} +{points_text(r['points'])}" for r in past[-8:])
        parts.append(f"your places: {places}")
    parts.append(f"featured: {data['featured']}" if data.get("featured") else "no featured race now")
    return " · ".join(parts)
