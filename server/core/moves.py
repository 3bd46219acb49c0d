"""The move path's decisions (docs/protocol.md §3, `move`), with no I/O.

A process keeps each playing player's game in an `Entry` and checks a move
against it before Redis sees it; the move script then re-checks, atomically,
what only Redis knows (status, deadline, the stored count) and answers with
one of the typed replies below. The cache runs ahead of Redis while a move
is in flight, so the player's next move waits for its answer: a refusal drops
the cache and the next move reloads it.

- `on_fast_path`: may this move be checked against the cache right away?
- `slow_step`: after a reload (cache miss, count mismatch), what the move is;
- `ack`, `dup_ack`, `refusal`: the client's answer to a reply.
"""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Protocol

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode, PlayerStatus

# --- what the move script answers (decoded by server/storage/moves.py) -----------------


class Applied:
    """The move (or finish) is stored: its count, time and race version; `frame` is its
    progress event as published; `live` the players still playing after it (-1: unchanged)."""

    __slots__ = ("n", "at", "ver", "live", "frame")

    def __init__(self, n: int, at: int, ver: int, live: int, frame: bytes) -> None:
        self.n, self.at, self.ver, self.live, self.frame = n, at, ver, live, frame


class Duplicate:
    """A retried move that was already applied: what its ack said, at the race's current version."""

    __slots__ = ("n", "home", "status", "at", "revealed", "ver")

    def __init__(
        self, n: int, home: int, status: str, at: int, revealed: list[tuple[str, str]], ver: int
    ) -> None:
        self.n, self.home, self.status, self.at, self.revealed, self.ver = n, home, status, at, revealed, ver


class Refused:
    """The script refused: `code` says why; `n` is the stored move count when it tells it."""

    __slots__ = ("code", "n")

    def __init__(self, code: ErrorCode, n: int | None = None) -> None:
        self.code, self.n = code, n


class Failed:
    """No answer from the script (a Redis error, a lost connection): the move had no effect,
    unless `unconfirmed` (it was sent, and the connection was lost before its reply)."""

    __slots__ = ("error", "unconfirmed")

    def __init__(self, error: BaseException, unconfirmed: bool = False) -> None:
        self.error = error
        self.unconfirmed = unconfirmed


MoveReply = Applied | Duplicate | Refused | Failed

# The statuses of the move path as plain strings: compared and encoded on every
# move, where an enum member costs a class lookup and msgspec's enum path.
PLAYING: str = PlayerStatus.PLAYING.value
WON: str = PlayerStatus.WON.value

# --- the cached game -------------------------------------------------------------------


class PositionEncoder(Protocol):
    def encode(self, move: str | None = None) -> bytes: ...


class Entry:
    """The cached game of one player in one running race."""

    __slots__ = ("game", "n", "status", "last", "inflight", "idle", "pos", "resnap", "dl")

    def __init__(
        self, game: rules.Game, pos: PositionEncoder, n: int, status: str, last: str, dl: int | None = None
    ) -> None:
        self.game = game
        self.dl = dl  # a berserk player's own deadline (ms); None: the race's
        self.pos = pos  # its compact stored encoding (stored as a snapshot every few moves)
        self.n = n
        self.status = status
        self.last = last  # the last move applied (or in flight): spots retried duplicates
        # The stored game has no snapshot count (it was stored before snapshots, its
        # position kept at every move): the next move must store its position with it.
        self.resnap = False
        self.inflight = 0
        self.idle: list[asyncio.Future[None]] = []  # waiters for inflight == 0

    def sent(self, move: str, won: bool) -> None:
        """A move applied to the cached game is on its way to Redis."""
        self.n += 1
        self.inflight += 1
        self.last = move
        if won:
            self.status = WON

    def landed(self) -> None:
        """Redis answered one in-flight move; wake whoever waits for none in flight."""
        self.inflight -= 1
        if self.inflight == 0 and self.idle:
            for f in self.idle:
                if not f.done():
                    f.set_result(None)
            self.idle.clear()


def may_win(game: rules.Game, move: str) -> bool:
    """Whether `move` may be the one that wins `game` (cards to a foundation that would bring
    every card home): such a move may end the race, and is stored after the race's end check
    is armed (handlers/play.py). Cheap and pure; a notation it cannot parse is not one."""
    parsed = game.game.parse_cache.get(move)
    if parsed is None or not isinstance(parsed, tuple):
        return False
    src, k, dst = parsed
    gdef = game.game
    return gdef.is_found[dst] and not gdef.is_found[src] and game.cards_home + k >= gdef.total


def on_fast_path(e: Entry | None, n: int) -> bool:
    """The cache can decide: the player's game is cached, still playing, `n` is its count, and
    Redis has answered every move sent from it. A move decided while an earlier one is in flight
    would stand on that one: were it refused (another process stored the player's move n first),
    the next would carry the stored count and be stored, decided on a game Redis never had."""
    return e is not None and n == e.n and e.status == PLAYING and e.inflight == 0


class Step(Enum):
    REACK = 1  # a retried duplicate of the last move: Redis re-acks it
    GAME_OVER = 2
    OUT_OF_SYNC = 3  # answer with the count, then the state
    APPLY = 4  # check it against the game and send it
    RACE_OVER = 5  # the game is over and the race's time is up; its clock has not ended it yet


# The steps that refuse the move outright, with the error each gets.
REFUSED_STEPS: dict[Step, ErrorCode] = {
    Step.GAME_OVER: ErrorCode.GAME_OVER,
    Step.RACE_OVER: ErrorCode.RACE_NOT_RUNNING,
}


def slow_step(e: Entry, n: int, move: str, past_deadline: bool = False) -> Step:
    """What a move is once the player's game is settled and loaded.

    `past_deadline`: the race's time is up by this process's clock. A finished
    game then says race-not-running, as it will once the clock has ended the race.
    """
    if n == e.n - 1 and move == e.last:
        return Step.REACK
    if e.status != PLAYING:
        return Step.RACE_OVER if past_deadline else Step.GAME_OVER
    if n != e.n:
        return Step.OUT_OF_SYNC
    return Step.APPLY


def too_late(e: Entry, now: int, race_deadline: int | None) -> ErrorCode | None:
    """The refusal an *illegal* move gets instead of illegal-move when the player's time is up
    by this process's clock, before Redis has stored the end (docs/protocol.md §6: the race's
    race-not-running, then the player's own game-over, come before illegal-move). A legal
    move goes to Redis, whose clock decides."""
    if race_deadline is not None and now >= race_deadline:
        return ErrorCode.RACE_NOT_RUNNING
    if e.dl is not None and now >= e.dl:
        return ErrorCode.GAME_OVER
    return None


# --- answers ---------------------------------------------------------------------------

MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.OUT_OF_SYNC: "move count mismatch; state follows",
    ErrorCode.GAME_OVER: "your game is over",
    ErrorCode.RACE_NOT_RUNNING: "the race is not running",
    ErrorCode.NO_SUCH_RACE: "no such race",
    ErrorCode.NOT_IN_RACE: "you have no seat in this race",
    ErrorCode.INTERNAL: "server fault; the move had no effect",
}
#: A move sent to Redis whose reply was lost with the connection (docs/protocol.md §6
#: `internal`): it may be stored. Resent with the same `n`, it is acknowledged once.
UNCONFIRMED = "server fault; the move may or may not have been stored: send it again with the same n"


def ack(
    rid: int | None,
    msg: m.Move,
    reply: Applied,
    res: rules.MoveResult,
    view: str | None,
    legal: list[str] | None,
) -> m.Ack:
    return m.Ack(
        rid=rid,
        race=msg.race,
        n=reply.n,
        ver=reply.ver,
        move=msg.move,
        revealed=list(res.revealed),
        home=res.cards_home,
        won=res.won,
        status=WON if res.won else PLAYING,
        at=reply.at,
        view=view,
        legal=legal,
    )


def dup_ack(rid: int | None, race: str, move: str, reply: Duplicate) -> m.Ack:
    return m.Ack(
        rid=rid,
        race=race,
        n=reply.n,
        ver=reply.ver,
        move=move,
        revealed=reply.revealed,
        home=reply.home,
        won=reply.status == WON,
        status=reply.status,
        at=reply.at,
        dup=True,
    )


def refusal(rid: int | None, reply: Refused | Failed) -> tuple[m.Error, bool]:
    """The error for a refused (or failed) move, and whether the player's state must follow."""
    if type(reply) is Failed:
        text = UNCONFIRMED if reply.unconfirmed else MESSAGES[ErrorCode.INTERNAL]
        return m.Error(rid=rid, code=ErrorCode.INTERNAL, message=text), False
    assert type(reply) is Refused
    code = reply.code
    if code == ErrorCode.OUT_OF_SYNC:
        return m.Error(rid=rid, code=code, message=MESSAGES[code], n=reply.n), True
    code = code if code in MESSAGES else ErrorCode.NOT_IN_RACE
    return m.Error(rid=rid, code=code, message=MESSAGES[code]), False
