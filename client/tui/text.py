"""Text the terminal apps show beside the board: progress bars, clocks, rankings,
the seed's commitment check. Plain functions, no terminal."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from rich.cells import cell_len, set_cell_size

_EIGHTHS = " ▏▎▍▌▋▊▉"

#: The marks after a name that the server vouches for (docs/protocol.md §3): anyone may take
#: any display name, so these tell an account, or a bot, from a guest who looks like one.
ACCOUNT_MARK = "✓"
BOT_MARK = "[bot]"


def name_mark(who: Mapping[str, Any]) -> str:
    """``ACCOUNT_MARK`` for an account (the map's `account`), ``BOT_MARK`` for a bot (a player
    id starting ``bot-``, or a `race_list` seat's `bot`), else ""."""
    if who.get("account"):
        return ACCOUNT_MARK
    pid = who.get("player")
    if who.get("bot") or (isinstance(pid, str) and pid.startswith("bot-")):
        return BOT_MARK
    return ""


def cells(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` terminal cells: a name's column. Counted in cells,
    not characters: a CJK character or an emoji takes two, a combining mark none (the server
    takes any name), and a name cut or padded by characters pushed the columns after it."""
    return set_cell_size(text, width)


def marked_name(who: Mapping[str, Any], width: int | None = None) -> str:
    """The map's name (its player id without one) and its mark; with ``width`` (in terminal
    cells), the name cut so that both fit, padded to it: the mark is never the part cut off."""
    name = str(who.get("name") or who.get("player") or "")
    mark = name_mark(who)
    if width is None:
        return f"{name} {mark}" if mark else name
    if not mark:
        return cells(name, width)
    room = max(width - cell_len(mark) - 1, 1)
    if cell_len(name) > room:
        name = cells(name, room)
    return cells(f"{name} {mark}", width)


def bar(home: int, total: int, width: int = 30) -> str:
    """A progress bar in eighths of a character; any progress shows at least a sliver."""
    total = max(total, 1)
    home = min(max(home, 0), total)
    eighths = round(width * 8 * home / total)
    if home and not eighths:
        eighths = 1
    full, part = divmod(eighths, 8)
    out = "█" * full + (_EIGHTHS[part] if part else "")
    return out + "░" * (width - len(out))


def plural(n: int, word: str) -> str:
    """``1 attempt``, ``3 attempts``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def clock(ms: float | None) -> str:
    """``m:ss`` for a duration in ms (negative clamps to 0:00); ``--:--`` if unknown."""
    if ms is None:
        return "--:--"
    s = max(0, int(ms // 1000))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


def duration(ms: int | None) -> str:
    if ms is None:
        return "—"
    return f"{ms // 60000}:{(ms // 1000) % 60:02}.{(ms // 100) % 10}"


def commitment_ok(seed: str | None, commitment: str | None) -> bool:
    if not seed or not commitment:
        return False
    return hashlib.sha256(seed.encode()).hexdigest() == commitment


def progress_line(
    name: str, home: int, total: int, n: int, status: str, width: int = 30, me: bool = False
) -> str:
    pct = 100 * home // max(total, 1)
    tag = "*" if me else " "
    return f"{tag}{cells(name, 16)} {bar(home, total, width)} {home:>3}/{total:<3} {pct:>3}%  {moves_cell(n)}  {status}"


#: A ranking's statuses as the browser's pills say them (client/web/static/js/players.js).
STATUS_WORDS = {"timeout": "time up"}


def time_text(r: dict[str, Any]) -> str:
    """The time a ranking row shows, labelled with what it measures: the time to
    win for a winner, the declaration for one who finished, the last move for
    one whose clock ran out. For non-winners it only informs: cards home and
    moves rank them (protocol/ranking.py)."""
    if r.get("won"):
        return "won in " + duration(r.get("time_ms"))
    if r.get("status") == "finished" and r.get("time_ms") is not None:
        return "stopped at " + duration(r.get("time_ms"))  # as the browser says it
    if r.get("last_move_ms") is not None:
        return "last move at " + duration(r.get("last_move_ms"))
    return "no move" if r.get("moves") == 0 else "time up"


def moves_cell(n: int) -> str:
    """``   1 move `` / ``  20 moves``: a count of moves, singular when one, in a fixed column."""
    return f"{n:>4} move " if n == 1 else f"{n:>4} moves"


def tie_break_notes(ranking: list[dict[str, Any]]) -> list[str]:
    """Why a player ranks above another with as many cards home (protocol/ranking.py): who
    reached that count first, else who made more moves. The times the ranking lines show
    are not what decides it, so it is said."""
    notes = []
    for a, b in zip(ranking, ranking[1:]):
        if a.get("won") or b.get("won") or a.get("home") != b.get("home") or a.get("rank") == b.get("rank"):
            continue
        first, second = (str(r.get("name") or r.get("player")) for r in (a, b))
        head = f"{first} ranks above {second} with as many cards home ({a.get('home', 0)}): "
        if a.get("home_at_ms") != b.get("home_at_ms"):
            notes.append(
                head + f"reached that count first ({duration(a.get('home_at_ms'))} "
                f"against {duration(b.get('home_at_ms'))})"
            )
        else:
            notes.append(head + f"more moves ({a.get('moves', 0)} against {b.get('moves', 0)})")
    return notes


def ranking_lines(ranking: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in ranking:
        t = time_text(r)
        out.append(
            f"{r.get('rank', '?'):>2}. {marked_name(r, 16)} "
            f"{STATUS_WORDS.get(str(r.get('status', '')), r.get('status', '')):<8} {r.get('home', 0):>3} home  {moves_cell(int(r.get('moves') or 0))}  {t}"
        )
    return out
