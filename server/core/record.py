"""The race record as plain data: `Race`, its `Player` seats, the statuses, `RaceError`.

Race status: lobby, countdown, running, finished (the lifecycle is in
``races``). Player status: waiting/ready in the lobby; playing from the start;
then won, finished (declared) or timeout (still playing at their deadline: the
race's, or half of it for an arena player who berserked, see
`lifecycle.own_deadline`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from protocol.messages import ErrorCode, PlayerStatus, RaceStatus

LOBBY, COUNTDOWN, RUNNING, FINISHED = (
    RaceStatus.LOBBY,
    RaceStatus.COUNTDOWN,
    RaceStatus.RUNNING,
    RaceStatus.FINISHED,
)
WAITING, READY, PLAYING = PlayerStatus.WAITING, PlayerStatus.READY, PlayerStatus.PLAYING
WON, DECLARED, TIMEOUT = PlayerStatus.WON, PlayerStatus.FINISHED, PlayerStatus.TIMEOUT
DONE = frozenset((WON, DECLARED, TIMEOUT))
# Every bot's player id starts with this (the server mints player ids, so no person's does):
# server/storage/bots.py mints them with it.
BOT_PREFIX = "bot-"


def is_bot(pid: str) -> bool:
    return pid.startswith(BOT_PREFIX)


class RaceError(Exception):
    """A refused request; `code` is the protocol error code (docs/protocol.md §6)."""

    def __init__(self, code: ErrorCode, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra  # extra fields of the `error` message (n, reason, field, ...)


@dataclass(slots=True)
class Player:
    player: str
    name: str
    ready: bool = False
    n: int = 0  # moves made
    home: int = 0  # cards home
    status: str = WAITING
    at: int | None = None  # time of the last status change (ms), None before the start
    session: str = ""  # a rated race's seat: the account's login session id (never on the wire)
    berserk: bool = False  # an arena player who took half the clock (their own deadline)
    # The seat was taken by an account (logged in, or a rated/matched account read when seated):
    # shown as such on the wire, so a guest who took an account's display name is told apart.
    account: bool = False


@dataclass(slots=True)
class Race:
    race: str
    game: str
    total: int
    seats: int
    time_limit_s: int
    private: bool
    host: str  # "" for quick-match races
    created: int
    seed: str  # secret until finished
    commitment: str
    rules_version: int = 1
    deal_version: int = 1
    quick: bool = False
    status: str = LOBBY
    ver: int = 0
    starts_at: int | None = None
    deadline: int | None = None
    ended: int | None = None
    players: list[Player] = field(default_factory=list)
    ranking: list[dict[str, Any]] | None = None
    spectators: int = 0
    # A daily challenge attempt (server/daily): its seed never shows in its
    # snapshots or its `end`; the daily reveals it after the day closes.
    sealed: bool = False
    # A private race's secret (core/privacy.py): "" for a public race or a daily attempt.
    invite: str = ""
    # A deal the solver proved winnable (server/certify): its winning line,
    # space-separated, published only once the race is finished.
    certified: bool = False
    proof: str = ""
    hints: bool = True  # false: created with `hints: false` (server/certify/rules.py)
    # Rated: only accounts, the server's settings, ratings updated at the end (server/ratings).
    rated: bool = False
    # The arena that paired its players (server/handlers/arena_loop.py), "" for any other race:
    # it tells an arena race from a quick-match in a player's recent races (core/recent.py).
    arena: str = ""
    # A public lobby is left out of the race list before this time (ms): a rematch, so that its
    # previous players may take their seats before strangers see it (core/bots.py). 0: at once.
    listed_from: int = 0

    def seat_of(self, player: str) -> Player | None:
        for p in self.players:
            if p.player == player:
                return p
        return None

    def copy(self) -> Race:
        return copy.deepcopy(self)
