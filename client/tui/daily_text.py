"""What the daily challenge screen writes (docs/protocol.md §5): a row per game from its
`daily` and `history` replies, and a day's leaderboard from its `leaderboard` reply.
Plain functions of the wire dicts, no terminal."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from client.cli import DEFAULT_URL
from protocol.rules.facts import game_name

from .text import clock, plural, ranking_lines, time_text

#: Under the daily screen's buttons: what Enter and Play do (Enter on a game showed its
#: leaderboard, and nothing said so; "Play today's" did not say what it starts).
DAILY_KEYS = (
    "↑↓: a game · Enter: its leaderboard · Play: its deal at once, your one ranked "
    "attempt of the day (the clock runs from the start) · Esc: back"
)


#: The same once the highlighted game's attempt is over: Play shows its board too.
DAILY_KEYS_DONE = "↑↓: a game · Enter or Play: its leaderboard (today's one attempt is over) · Esc: back"


def daily_keys(info: dict[str, Any] | None) -> str:
    """The keys line for the highlighted game (its `daily` reply)."""
    return DAILY_KEYS_DONE if attempt_done(info) else DAILY_KEYS


def play_label(info: dict[str, Any] | None) -> str:
    """The Play button, for the highlighted game (its `daily` reply): what pressing it starts,
    resumes, or, the day's one attempt over, shows (it read "Play today's deal" still)."""
    if attempt_done(info):
        return "Today's attempt done: its leaderboard"
    return "Resume today's attempt" if in_progress(info) else "Play today's deal (one ranked attempt)"


def entry_result(entry: dict[str, Any]) -> str:
    """One attempt's result: ``won in 3:21.4``, or cards home and how it ended."""
    if entry.get("won"):
        return time_text(entry)
    return f"{entry.get('home', 0)}/{entry.get('total', 0)} home, {time_text(entry)}"


def closes_text(info: dict[str, Any], now_ms: int) -> str:
    """When today's dailies close (midnight UTC) and an attempt's clock: both the same for
    every game, so said once here rather than in every row (at 80 columns the rows had
    no room for them)."""
    per_attempt = f" · {clock((info.get('time_limit_s') or 0) * 1000)} per attempt"
    if info.get("status") != "open" or not info.get("closes"):
        return "today's dailies are closed"
    return f"today's dailies close in {clock(info['closes'] - now_ms)} (midnight UTC){per_attempt}"


def today_cell(info: dict[str, Any]) -> str:
    """The day's facts: attempts so far and a deal proved winnable; closed if it is."""
    parts = [] if info.get("status") == "open" else [str(info.get("status", "?"))]
    parts.append(f"{int(info.get('entries') or 0)} played")
    if info.get("certified"):
        parts.append("winnable")
    return ", ".join(parts)


def in_progress(info: dict[str, Any] | None) -> bool:
    """The player's attempt of the day has started and is not over (Play resumes it)."""
    you = (info or {}).get("you") or {}
    return bool(you) and (you.get("status") != "done" or not you.get("entry"))


def attempt_done(info: dict[str, Any] | None) -> bool:
    """The player's attempt of the day is over: the reply's `you` has its entry (the server
    says ``done`` once the entry is written)."""
    you = (info or {}).get("you") or {}
    return you.get("status") == "done" and bool(you.get("entry"))


def you_cell(info: dict[str, Any]) -> str:
    """The player's attempt of the day: none yet, in progress, or its result and place."""
    you = info.get("you")
    if not you:
        return "not played yet"
    entry = you.get("entry")
    if you.get("status") != "done" or not entry:
        return "in progress"
    result = time_text(entry) if entry.get("won") else f"{entry.get('home', 0)}/{entry.get('total', 0)} home"
    return f"{result} · #{entry.get('rank', '?')} of {info.get('entries') or '?'}"


def streak_cell(history: dict[str, Any] | None) -> str:
    """Consecutive days played (and the best run), from the `history` reply; ``—`` if unknown."""
    if not history:
        return "—"
    streak, best = int(history.get("streak") or 0), int(history.get("best_streak") or 0)
    if streak:
        return plural(streak, "day") + (f" (best {best})" if best > streak else "")
    return f"none (best {best})" if best else "—"


def daily_row(
    game: str, info: dict[str, Any] | None, history: dict[str, Any] | None
) -> tuple[str, str, str, str]:
    """The cells of one game's row: game, today, your attempt, your streak."""
    if info is None:
        return (game_name(game), "unavailable", "—", streak_cell(history))
    return (game_name(game), today_cell(info), you_cell(info), streak_cell(history))


def verify_command(game: str, date: str, server_url: str | None) -> str:
    """``solrace verify --daily GAME --date DATE --url URL``: without ``--url`` when it is the
    default server's (the command's own default), ``ws://HOST:PORT/ws`` to fill in when the
    server is not known. Without it the command checked the default server's day, not the
    one the player played on."""
    command = f"solrace verify --daily {game} --date {date}"
    if server_url != DEFAULT_URL:
        command += f" --url {server_url or 'ws://HOST:PORT/ws'}"
    return command


def leaderboard_text(board: dict[str, Any], me: str | None, server_url: str | None = None) -> Text:
    """A day's leaderboard: its top entries, the entries around yours when you are below
    them, and your place (your own line in bold); once the day is closed, the command that
    checks it on ``server_url`` (the server's the board is from)."""
    game = str(board.get("game", ""))
    count = int(board.get("count") or 0)
    state = "final" if board.get("final") else str(board.get("status", ""))
    t = Text()
    t.append(f"{game_name(game)} · daily of {board.get('date', '?')} · {state} · ", style="bold")
    t.append(plural(count, "attempt") + "\n", style="bold")
    top = list(board.get("top") or [])
    if not top:
        t.append("nobody has finished an attempt yet\n")

    def lines(entries: list[dict[str, Any]]) -> None:
        for line, e in zip(ranking_lines(entries), entries):
            mine = e.get("player") == me
            t.append(("* " if mine else "  ") + line + "\n", style="bold green" if mine else None)

    lines(top)
    mine = board.get("me")
    shown = {e.get("player") for e in top}
    around = [e for e in board.get("around") or [] if e.get("player") not in shown]
    if around:
        t.append("  …\n")
        lines(around)
    if mine:
        t.append(f"your place: #{mine.get('rank', '?')} of {count} — {entry_result(mine)}")
    else:
        t.append("you have no finished attempt on this board")
    if board.get("status") == "closed":
        command = verify_command(game, str(board.get("date", "?")), server_url)
        t.append(f"\nthe day is closed: {command} re-plays it from the revealed seed")
    return t
