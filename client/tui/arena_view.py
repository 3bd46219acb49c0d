"""Arenas in the terminal, as plain functions over the protocol's dicts (docs/protocol.md
§5a): the list's rows, the time left, the standings lines, the arena's header. No
terminal needed to test them; ``arena_app`` draws what they return."""

from __future__ import annotations

from typing import Any

from protocol.rules.facts import game_name

from .text import clock


def time_left(arena: dict[str, Any], now: int) -> str:
    """ "starts in 4:00", "12:30 left", or what the end is at."""
    if now < arena.get("starts", 0):
        return "starts in " + clock(arena["starts"] - now)
    if now < arena.get("ends", 0):
        return clock(arena["ends"] - now) + " left"
    return "final standings" if arena.get("final") else "over: the last races are finishing"


def arena_row(arena: dict[str, Any], now: int) -> tuple[str, ...]:
    """One line of the arena list: id, name, game, status, time, players."""
    return (
        arena.get("id", ""),
        arena.get("name") or arena.get("id", ""),
        game_name(arena.get("game", "")),
        arena.get("status", ""),
        time_left(arena, now),
        str(arena.get("players", 0)),
    )


def standing_line(row: dict[str, Any], me: str | None) -> str:
    """``  3. ada        14 pts  5/7 wins  on fire`` (``>`` marks your own row)."""
    mark = ">" if row.get("player") == me else " "
    fire = "  on fire" if row.get("fire") else ""
    return (
        f"{mark}{row.get('rank', 0):>4}. {row.get('name', '')[:16]:<16} {row.get('points', 0):>4} pts"
        f"  {row.get('wins', 0)}/{row.get('races', 0)} wins{fire}"
    )


def standings_lines(board: dict[str, Any], me: str | None) -> list[str]:
    """The top rows, then (after a gap) the rows around yours that are not in the top."""
    top = list(board.get("top") or [])
    lines = [standing_line(r, me) for r in top]
    shown = {r.get("player") for r in top}
    rest = [r for r in board.get("around") or [] if r.get("player") not in shown]
    if rest:
        lines.append("     …")
        lines += [standing_line(r, me) for r in rest]
    if not lines:
        lines.append("  nobody has joined yet")
    return lines


def standings_title(board: dict[str, Any]) -> str:
    what = "Final standings" if board.get("final") else "Standings"
    return f"{what} · {board.get('count', 0)} players"


def winners_line(board: dict[str, Any]) -> str | None:
    """Once final: the podium (the first three places with points), else None."""
    if not board.get("final"):
        return None
    podium = [r for r in board.get("top") or [] if r.get("rank", 99) <= 3 and r.get("points", 0) > 0]
    if not podium:
        return "Winners: nobody scored"
    return "Winners: " + ", ".join(
        f"{r['rank']}. {r.get('name', '')} ({r.get('points', 0)} pts)" for r in podium
    )


def arena_header(data: dict[str, Any], now: int) -> str:
    """The arena's name, game, seats, clock, time left; whether you are in it."""
    a = data.get("arena") or {}
    minutes = max(1, round(a.get("time_limit_s", 0) / 60))
    joined = "you are in: paired whenever free" if data.get("joined") else "not joined"
    berserk = " · berserk allowed" if a.get("berserk") else ""
    return (
        f"{a.get('name') or a.get('id', '')} — {game_name(a.get('game', ''))} · {a.get('seats', 2)} seats · "
        f"{minutes} min races{berserk} · {time_left(a, now)} · {joined}"
    )


def races_line(data: dict[str, Any]) -> str:
    """Your race being played, your past races' places and points, the featured race."""
    parts = []
    if data.get("race"):
        parts.append(f"your race: {data['race']}")
    past = data.get("races") or []
    if past:
        parts.append("your races: " + " ".join(f"#{r['rank']}:{r['points']}" for r in past[-12:]))
    parts.append(f"featured: {data['featured']}" if data.get("featured") else "no race being played")
    return " · ".join(parts)
