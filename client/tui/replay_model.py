"""A finished race's replay, move by move, for the terminal viewer (client/tui/replay_screen.py).

Plain data and plain functions, no terminal. :func:`build_replay` takes a replay document —
the server's `replay` reply (docs/protocol.md §3), or a closed daily's `daily_replay` (§5),
as `solrace verify` reads them — re-deals its revealed seed with the rules engine and
re-plays every player's moves once, keeping each position's view text (what the player saw:
face-down cards stay backs), so that stepping through a race of hundreds of moves is a list
index. A :class:`Cursor` says which player's which position is shown; :func:`step`,
:func:`jump` and :func:`switch` move it within bounds.

Nothing here knows more than the document: it holds the seed only once the race (or the
day) is over, since the server reveals it no sooner.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from protocol import rules


class ReplayError(ValueError):
    """A document that cannot be replayed at all (no seed, unknown game, not a replay)."""


@dataclass(frozen=True)
class Frame:
    """One position of a player's game: the deal (``n`` 0) or the one after move ``n``."""

    n: int
    #: the move that led here, in notation (None for the deal)
    move: str | None
    #: the view text (docs/rules.md §7.3) the player saw here
    view: str
    home: int
    won: bool
    #: time into the race of the move (0 for the deal); None when the start is unknown
    at_ms: int | None


@dataclass(frozen=True)
class PlayerReplay:
    player: str
    name: str
    frames: tuple[Frame, ...]
    #: the player's ranking entry (rank, status, won, time_ms, …), if the document has one
    entry: dict[str, Any] | None = None
    #: why the frames stop before the published moves do (an illegal move), else None
    stopped: str | None = None
    #: when the player's game ended (ms into the race: the win, the declaration, the clock
    #: running out), the document's `ended_ms`; None when it does not say (a daily's document)
    ended_ms: int | None = None

    @property
    def last(self) -> int:
        """The index of the last frame (= the moves replayed)."""
        return len(self.frames) - 1


@dataclass(frozen=True)
class RaceReplay:
    game: str
    seed: str
    total: int
    players: tuple[PlayerReplay, ...]
    race: str | None = None
    #: a daily's day (a `daily_replay` document), else None
    date: str | None = None

    def find(self, who: str) -> int | None:
        """The position in :attr:`players` of a player id or name (case-insensitive), or of a
        place as the viewer numbers them, from 1 (its keys 1-9), or None."""
        for i, p in enumerate(self.players):
            if who == p.player:
                return i
        for i, p in enumerate(self.players):
            if who.casefold() == p.name.casefold():
                return i
        if who.isdecimal() and 1 <= int(who) <= len(self.players):
            return int(who) - 1
        return None

    def index_of(self, who: str | None) -> int:
        """:meth:`find`, or 0 (the first place) for nobody or someone not in the race."""
        found = self.find(who) if who else None
        return 0 if found is None else found


def _moves_of(raw: Any, who: str) -> list[tuple[str, int | None]]:
    """``[[move, at], …]`` (a plain list of moves is accepted too: no times then)."""
    out: list[tuple[str, int | None]] = []
    for i, item in enumerate(raw or []):
        if isinstance(item, str):
            out.append((item, None))
            continue
        try:
            move, at = item[0], item[1]
            out.append((str(move), None if at is None else int(at)))
        except (TypeError, ValueError, IndexError, KeyError):
            raise ReplayError(f"{who}: move {i + 1} is not [move, at]: {item!r}") from None
    return out


def player_frames(
    game: str, seed: str, moves: list[tuple[str, int | None]], start: int | None
) -> tuple[tuple[Frame, ...], str | None]:
    """Every position of one player's game, the deal first; an illegal move (a document that
    was tampered with) ends the frames before it, and the second value says so."""
    g = rules.deal(game, seed)
    frames = [Frame(0, None, g.view_text(), g.cards_home, g.won, 0 if start is not None else None)]
    for i, (move, at) in enumerate(moves):
        if g.won:
            return tuple(
                frames
            ), f"move {i + 1} {move!r} comes after the game was won: the replay stops there"
        try:
            g.play(move)
        except rules.IllegalMove as e:
            why = f"move {i + 1} {move!r} is illegal ({e.message}): the replay stops before it"
            return tuple(frames), why
        at_ms = at - start if at is not None and start is not None else None
        frames.append(Frame(i + 1, move, g.view_text(), g.cards_home, g.won, at_ms))
    return tuple(frames), None


def inferred_start(entry: dict[str, Any] | None, moves: list[tuple[str, int | None]]) -> int | None:
    """The race's start (server ms) from a ranking entry and the moves' times: the last move's
    time less `last_move_ms`, or the winning move's less `time_ms`, for a document without
    `starts_at` (a replay saved from a server before it; its figures are times since the start)."""
    if not entry or not moves or moves[-1][1] is None:
        return None
    last_at = moves[-1][1]
    if entry.get("last_move_ms") is not None:
        return last_at - int(entry["last_move_ms"])
    if entry.get("won") and entry.get("time_ms") is not None:
        return last_at - int(entry["time_ms"])  # the winning move is the last one
    return None


def build_replay(doc: Any) -> RaceReplay:
    """Re-play a replay document (see the module doc); :class:`ReplayError` if it cannot be.

    Players come in ranking order (the winner first; those the ranking lacks after), so
    that the keys 1…9 pick them by place."""
    try:
        return _build_replay(doc)
    except ReplayError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError) as e:  # a field of the wrong type
        raise ReplayError(f"the document is malformed ({type(e).__name__}: {e})") from None


def _build_replay(doc: Any) -> RaceReplay:
    if not isinstance(doc, dict):
        raise ReplayError("a replay document is a map")
    game, seed = doc.get("game"), doc.get("seed")
    if game not in rules.GAMES:
        raise ReplayError(f"unknown game {game!r}")
    if not isinstance(seed, str) or not seed:
        raise ReplayError("the document has no seed: it is revealed only once the race or the day is over")
    for name, ours in (("rules_version", rules.RULES_VERSION), ("deal_version", rules.DEAL_VERSION)):
        theirs = doc.get(name)
        if theirs is not None and theirs != ours:
            raise ReplayError(f"{name} {theirs} is not the one this client plays ({ours})")
    entries = {str(e.get("player")): e for e in doc.get("ranking") or [] if isinstance(e, dict)}
    raw = [p for p in doc.get("players") or [] if isinstance(p, dict)]
    if not raw:
        raise ReplayError("the document has no player's moves")
    moves = {str(p.get("player")): _moves_of(p.get("moves"), str(p.get("player"))) for p in raw}
    starts: dict[str, int | None] = {}
    for p in raw:
        who = str(p.get("player"))
        given = p.get("starts_at", doc.get("starts_at"))
        starts[who] = int(given) if given is not None else inferred_start(entries.get(who), moves[who])
    if doc.get("race") is not None:  # one race, one start: a player who tells it tells it for all
        known = next((s for s in starts.values() if s is not None), None)
        starts = {who: known if s is None else s for who, s in starts.items()}
    players = []
    for p in raw:
        who = str(p.get("player"))
        frames, stopped = player_frames(game, seed, moves[who], starts[who])
        name = str(p.get("name") or entries.get(who, {}).get("name") or who)
        ended = p.get("ended_ms")
        players.append(
            PlayerReplay(who, name, frames, entries.get(who), stopped, None if ended is None else int(ended))
        )
    order = {who: i for i, who in enumerate(entries)}
    ranked = sorted(
        enumerate(players),
        key=lambda ip: (int((ip[1].entry or {}).get("rank") or 1_000_000), order.get(ip[1].player, ip[0])),
    )
    total = int(doc.get("total") or rules.GAMES[game].total)
    race = doc.get("race")
    return RaceReplay(
        game, seed, total, tuple(p for _i, p in ranked), None if race is None else str(race), doc.get("date")
    )


def landed_on(move: str | None) -> str | None:
    """The pile a move put its cards on (``t5`` for ``t2:3>t5``), for the board to mark;
    None for the deal and for ``draw`` (whose cards go where the game deals them)."""
    if not move or ">" not in move:
        return None
    return move.rpartition(">")[2] or None


# --- the cursor ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Cursor:
    """What the viewer shows: player ``player``'s frame ``index``."""

    player: int = 0
    index: int = 0
    #: the moment (ms into the race) the viewer was last stepped to: switching players shows
    #: the other's board at that same moment, and switching back returns exactly here
    at_ms: int | None = 0


def frame(replay: RaceReplay, cursor: Cursor) -> Frame:
    return replay.players[cursor.player].frames[cursor.index]


def moment(replay: RaceReplay, cursor: Cursor) -> int | None:
    """The moment shown (ms into the race): the cursor's, which after a switch is later than
    the move on the board; None when the times are unknown."""
    return cursor.at_ms if cursor.at_ms is not None else frame(replay, cursor).at_ms


def last_moment(replay: RaceReplay) -> int | None:
    """The latest moment of the race the document knows of: a move, a player's end (a win, a
    declared finish, a clock run out)."""
    known = [p.frames[-1].at_ms for p in replay.players]
    known += [(p.entry or {}).get("time_ms") for p in replay.players]
    known += [p.ended_ms for p in replay.players]
    return max((int(t) for t in known if t is not None), default=None)


def end_ms(replay: RaceReplay, player: int) -> int | None:
    """When the player's game ended (ms into the race), None when the times are unknown.

    The server's `replay` says it (`ended_ms`): a timeout is at the player's deadline, which
    can come long after their last move. Without it (a daily's document, an older server's) a
    win or a declared finish has its time (`time_ms`), and for a timeout the latest moment
    known stands in, since the deadline comes after everything else in the race: no earlier
    moment of the race shows the player's time as up."""
    p = replay.players[player]
    last = p.frames[-1].at_ms
    if last is None:
        return None
    if p.ended_ms is not None:
        return max(p.ended_ms, last)
    ended = (p.entry or {}).get("time_ms")
    if ended is not None:
        return max(int(ended), last)
    if p.frames[-1].won:
        return last
    return max(last, last_moment(replay) or last)


def at_end(replay: RaceReplay, cursor: Cursor) -> bool:
    """At the player's last position, and at (or after) the moment their game ended."""
    if cursor.index < replay.players[cursor.player].last:
        return False
    end, now = end_ms(replay, cursor.player), moment(replay, cursor)
    return end is None or now is None or now >= end


def _to(replay: RaceReplay, player: int, index: int) -> Cursor:
    frames = replay.players[player].frames
    index = min(max(index, 0), len(frames) - 1)
    return Cursor(player, index, frames[index].at_ms)


def _end(replay: RaceReplay, player: int) -> Cursor:
    """The player's last position at the moment their game ended (a declared finish can
    come long after the last move)."""
    p = replay.players[player]
    end = end_ms(replay, player)
    return Cursor(player, p.last, p.frames[-1].at_ms if end is None else end)


def step(replay: RaceReplay, cursor: Cursor, delta: int) -> Cursor:
    """``delta`` moves forward (back when negative), within the player's frames; forward from
    the last move, to the moment the player's game ended."""
    if delta > 0 and cursor.index + delta > replay.players[cursor.player].last:
        return cursor if at_end(replay, cursor) else _end(replay, cursor.player)
    return _to(replay, cursor.player, cursor.index + delta)


def jump(replay: RaceReplay, cursor: Cursor, end: bool) -> Cursor:
    """To the deal, or to the position after the last move once the player's game ended."""
    return _end(replay, cursor.player) if end else _to(replay, cursor.player, 0)


def frame_at(frames: tuple[Frame, ...], at_ms: int) -> int:
    """The index of the position on the board at ``at_ms`` into the race: after the last move
    made by then (the deal before the first)."""
    index = 0
    for i, f in enumerate(frames):
        if f.at_ms is None or f.at_ms > at_ms:
            break
        index = i
    return index


def switch(replay: RaceReplay, cursor: Cursor, player: int) -> Cursor:
    """Another player (wrapping around), at the same moment of the race when the times are
    known, else at the same move count (as far as they played)."""
    player %= len(replay.players)
    frames = replay.players[player].frames
    if cursor.at_ms is not None and frames[-1].at_ms is not None:
        index = frame_at(frames, cursor.at_ms)
    else:
        index = min(cursor.index, len(frames) - 1)
    return replace(cursor, player=player, index=index)  # the moment is kept, not the new frame's
