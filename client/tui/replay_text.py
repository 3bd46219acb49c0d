"""What the terminal replay viewer writes (client/tui/replay_screen.py): its heading, the
players to switch between, the line under the board (move k of N, the move, cards home,
the time into the race), and the one sentence that says why a replay was refused (and the
watch app's short one, when a finished race's final boards did not come).
Plain functions of client/tui/replay_model.py's data, no terminal."""

from __future__ import annotations

from rich.text import Text

from protocol.rules.facts import game_name

from .errors import WORDS, error_text
from .replay_model import Cursor, RaceReplay, at_end, frame, moment
from .text import duration, marked_name, time_text

#: Seconds between two moves of the auto-play: steady, whatever the race's own pace was.
AUTOPLAY_S = 0.5

#: How a player who did not win ended, said at their last position.
END_TEXTS = {"finished": "declared finished", "timeout": "time up"}

HELP_TEXT = (
    "→/n next · ←/p back · Home/End the deal/the end · Tab/1-9 another player (at the same moment) · "
    "space auto-play · ↑/↓ scroll · Esc back"
)


def title_text(replay: RaceReplay) -> Text:
    """``race r8a1c · Fours Up · seed 9be…`` (a daily's day instead of a race id)."""
    t = Text()
    what = f"race {replay.race}" if replay.race else f"daily {replay.date}" if replay.date else "replay"
    t.append(what, style="bold")
    t.append(f" · {game_name(replay.game)} · seed {replay.seed}")
    return t


def player_label(replay: RaceReplay, i: int) -> str:
    """``1 ada · won in 3:21.4`` (the key that picks the player, and their result)."""
    p = replay.players[i]
    key = f"{i + 1} " if i < 9 else ""
    result = f" · {time_text(p.entry)}" if p.entry else ""
    who = {"player": p.player, "name": p.name, "account": (p.entry or {}).get("account")}
    return f"{key}{marked_name(who)}{result}"


def players_text(replay: RaceReplay, cursor: Cursor) -> Text:
    """Every player, the one shown highlighted."""
    t = Text()
    for i in range(len(replay.players)):
        if i:
            t.append("   ")
        shown = i == cursor.player
        t.append(f" {player_label(replay, i)} ", style="bold reverse" if shown else "dim")
    return t


def status_text(replay: RaceReplay, cursor: Cursor) -> str:
    """The line under the board: ``ada · move 37 of 112 · t2>f5 · 41/104 cards home ·
    1:23.4 into the race`` (the deal is move 0). The time is the moment shown, which after a
    switch of player is later than the move on the board; the player's end (time up, declared
    finished) shows only once that moment has come."""
    p = replay.players[cursor.player]
    f = frame(replay, cursor)
    parts = [p.name, f"move {f.n} of {p.last}", f.move or "the deal", f"{f.home}/{replay.total} cards home"]
    now = moment(replay, cursor)
    if now is not None:
        parts.append(f"{duration(max(now, 0))} into the race")
    if f.won:
        parts.append("won")
    elif at_end(replay, cursor) and p.entry:
        status = str(p.entry.get("status") or "")
        parts.append(END_TEXTS.get(status, status or "the end"))
    line = " · ".join(parts)
    if p.stopped and cursor.index >= p.last:
        line += f" ({p.stopped})"
    return line


# --- refusals ----------------------------------------------------------------------------------


def refusal_text(code: str, race: str, message: str = "", *, flags: bool = True) -> str:
    """One sentence for a `replay` the server refused (docs/protocol.md §3 `replay`, §6).
    ``flags``: name the command's options that may get past a refusal (`solrace replay`);
    inside the app, whose session already asks as the player, there are none."""
    if code == "no-such-race":
        return f"There is no race {race} on this server (a wrong id, or a race too old to be kept)."
    if code == "race-not-over":
        return f"Race {race} has not finished: its replay opens once it has."
    if code == "daily-open":
        return f"Race {race} is a daily attempt: its moves stay sealed until its day closes (00:00 UTC)."
    if code == "private-race":
        how = " (--token-file to ask as one of its players, or --invite)" if flags else ""
        return f"Race {race} is private: only its players and holders of its invite may replay it{how}."
    if code == "bad-token":
        return "The server does not know this token (its session ended): log in again with solrace play."
    if code in ("disconnected", "reply-lost", "timeout"):
        return f"The server did not answer for race {race} (the connection is down or slow): try again."
    if code in WORDS or message:  # client/tui/errors.py's words, else the server's: no code
        return f"The server refused the replay of race {race}: {error_text(code, message)}."
    return f"The server refused the replay of race {race} ({code})."  # nothing else is known


#: Why a finished race's final boards did not come (the watch app's line over the boards), by
#: the code of the `replay` refused: short, the whole sentence (:func:`refusal_text`) is said
#: on the message line.
NO_FINAL_BOARDS = {
    "race-not-over": "the server has not closed the race yet",
    "no-such-race": "the race is no longer kept",
    "private-race": "a private race: its invite link is needed",
    "daily-open": "a daily attempt: sealed until its day closes",
    "bad-token": "the session ended",
    "disconnected": "the server did not answer",
    "reply-lost": "the server did not answer",
    "timeout": "the server did not answer",
}


def final_boards_late_text(race: str, waited_s: float) -> str:
    """The watch app giving up on a finished race's final boards: the server still answered
    that the race is not over after ``waited_s`` seconds of asking."""
    return (
        f"The server had still not closed race {race} after {waited_s:.0f} s of asking, so its "
        "final boards did not come: press f to ask again."
    )


def no_final_boards_text(code: str, message: str = "") -> str:
    """``no final boards (why)``: a refused `replay` in a player's words, never its code."""
    return f"no final boards ({NO_FINAL_BOARDS.get(code) or error_text(code, message)})"
