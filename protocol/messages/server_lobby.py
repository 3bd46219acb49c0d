"""Server messages outside any one race: the session (`welcome`, `pong`, and the
generic `ok` and `error` replies), the race list, the quick-match queue and rematch offers."""

from __future__ import annotations

from .server_base import Nested, ServerMsg

# --- the session ----------------------------------------------------------------------


class Welcome(ServerMsg, tag="welcome"):
    v: int
    player: str
    name: str
    token: str
    races: list[str]
    time: int
    limits: dict[str, int]


class Pong(ServerMsg, tag="pong"):
    time: int


class Ok(ServerMsg, tag="ok"):
    ver: int | None = None  # reply to `finish`: the version of its progress event


class Error(ServerMsg, tag="error"):
    code: str  # ErrorCode; a str so that a newer server's codes still decode
    message: str
    field: str | None = None  # bad-message
    supported: list[int] | None = None  # bad-version
    retry_ms: int | None = None  # rate-limited, login-limited, solver-busy
    n: int | None = None  # out-of-sync: the stored move count
    reason: str | None = None  # illegal-move: the rules engine's code


# --- finding a race: the race list, the quick-match queue, rematch offers -------------


class SummaryPlayer(Nested):
    name: str
    home: int
    status: str
    account: bool = False  # as in PlayerInfo
    bot: bool = False  # a bot's seat (a `race_list` entry carries no player ids)


class RaceSummary(Nested):
    """One entry of `race_list`."""

    race: str
    game: str
    status: str
    players: list[SummaryPlayer]
    seats: int  # in a lobby, a seat is free while fewer players than this sit
    total: int
    starts_at: int | None
    deadline: int | None
    spectators: int
    rated: bool = False  # a rated race (docs/protocol.md §9)


class RaceList(ServerMsg, tag="race_list"):
    races: list[RaceSummary]


class Queued(ServerMsg, tag="queued"):
    game: str
    seats: int
    rated: bool = False


class RematchOffer(ServerMsg, tag="rematch"):
    """To each player of a finished race: `by` offers a rematch, race `rematch` (accept: `join`)."""

    race: str  # the finished race
    rematch: str  # the new race
    by: str  # player id of who asked
    name: str  # their name
    invite: str | None = None  # the new race's invite, if it is private (for `join`)
    account: bool = False  # who asked is an account (as in PlayerInfo)
