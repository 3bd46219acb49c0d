"""Protocol-level constants: version, error codes, close codes, statuses, limits.

Everything here is part of the wire contract (docs/protocol.md): changing a
value changes what a conforming client sees. Operational limits (rates,
queues, timeouts) have their *defaults* here so that the server, the docs and
`welcome.limits` agree; the server may override them by configuration.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Final

#: The protocol version this code speaks (docs/protocol.md §1 "Versions").
PROTOCOL_VERSION: Final = 1
#: Versions a server built from this code accepts in `hello.v`.
SUPPORTED_VERSIONS: Final = (1,)


class ErrorCode(StrEnum):
    """Every stable error code of docs/protocol.md §6.

    The value is the wire string; being a `StrEnum`, a member compares equal to
    it (`ErrorCode.BAD_FRAME == "bad-frame"`).
    """

    BAD_FRAME = "bad-frame"  # not a binary frame, not MessagePack, not a map
    BAD_MESSAGE = "bad-message"  # wrong/missing field, wrong type, out of range, unknown key (+field)
    UNKNOWN_TYPE = "unknown-type"  # `t` is not a known message type
    HELLO_FIRST = "hello-first"  # any message before `hello`
    BAD_VERSION = "bad-version"  # unsupported protocol version (+supported)
    BAD_TOKEN = "bad-token"  # unknown or expired session token
    RATE_LIMITED = "rate-limited"  # message credits exhausted, message dropped (+retry_ms)
    UNKNOWN_GAME = "unknown-game"  # no such game id
    NO_SUCH_RACE = "no-such-race"  # unknown (or expired) race id
    NOT_IN_RACE = "not-in-race"  # the request needs a seat in this race
    RACE_FULL = "race-full"  # every seat is taken
    RACE_STARTED = "race-started"  # join/leave/ready after the countdown began
    NOT_HOST = "not-host"  # `start` by someone other than the host
    NOT_READY = "not-ready"  # `start` while a present player is not ready
    TOO_MANY_RACES = "too-many-races"  # MAX_RACES_PER_PLAYER seats already held
    RACE_NOT_RUNNING = "race-not-running"  # move/finish before the start or after the end
    GAME_OVER = "game-over"  # move after the player won or finished
    OUT_OF_SYNC = "out-of-sync"  # the move's n is not the stored count (+n)
    ILLEGAL_MOVE = "illegal-move"  # the rules engine refused the move (+reason)
    RACE_NOT_OVER = "race-not-over"  # replay of a race that is not finished
    PRIVATE_RACE = "private-race"  # spectating a private race
    IS_PLAYER = "is-player"  # spectating a race you play in
    DAILY_OPEN = "daily-open"  # a daily's race, seed or replays before the day closes
    DAILY_NOT_OPEN = "daily-not-open"  # a daily of a day that has not begun
    DAILY_DONE = "daily-done"  # daily_start after the day's one attempt was played
    DAILY_CLOSING = "daily-closing"  # daily_start too close to the day's end
    DAILY_BUSY = "daily-busy"  # daily_start while another connection is creating the attempt
    NO_REPLAY = "no-replay"  # daily_replay of an entry outside the published top
    NO_ARENA = "no-arena"  # unknown arena id
    ARENA_OVER = "arena-over"  # arena_join after the arena's end
    BAD_ARENA = "bad-arena"  # arena_create refused: disabled here, or a bad id/duration/seats
    HINTS_FORBIDDEN = "hints-forbidden"  # `hint` in a race where hints are not allowed
    # accounts and ratings (docs/protocol.md §9)
    BAD_NAME = "bad-name"  # claim: the account name breaks the naming rule
    BAD_PASSWORD = "bad-password"  # claim/password: the new password breaks the password rule
    NAME_TAKEN = "name-taken"  # claim: another account has this name; hello: a name a guest may not take
    ALREADY_ACCOUNT = "already-account"  # claim by a player who already is an account
    CLAIM_LIMITED = "claim-limited"  # claim: too many accounts made from the address (+retry_ms)
    LOGIN_LIMITED = "login-limited"  # too many logins for the name or address, or password checks for the session (+retry_ms)
    BAD_LOGIN = "bad-login"  # unknown name or wrong password
    NOT_LOGGED_IN = "not-logged-in"  # the request needs a logged-in account on this connection
    CONFLICT = "conflict"  # password: changed meanwhile by another session
    NO_SUCH_ACCOUNT = "no-such-account"  # profile of a player who is no account
    NOT_RATEABLE = "not-rateable"  # start of a rated race that cannot be rated (one player)
    INTERNAL = "internal"  # a server fault; no effect, but a seat taken before it (the message says so)
    NO_BOTS = "no-bots"  # bot request while no bot worker has a free slot not set aside already
    SOLVER_BUSY = "solver-busy"  # hint/analysis not computed within its wait (+retry_ms)


class CloseCode(IntEnum):
    """WebSocket close codes the server uses (docs/protocol.md §6)."""

    POLICY = 1008  # no hello in time, too many connections, rate limit abused
    TOO_BIG = 1009  # inbound frame over MAX_FRAME
    INTERNAL = 1011  # internal error
    RESTART = 1012  # server restarting: reconnect (maybe elsewhere) with the token


class RaceStatus(StrEnum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"


class PlayerStatus(StrEnum):
    WAITING = "waiting"
    READY = "ready"
    PLAYING = "playing"
    WON = "won"
    FINISHED = "finished"  # declared finished by the player
    TIMEOUT = "timeout"  # stopped by the race's time limit


# --- Field limits enforced by the codec (a violation is `bad-message`) -------

MAX_NAME: Final = 24  # display name, characters
MAX_SEATS: Final = 8
MIN_SEATS: Final = 1
MIN_QUICK_SEATS: Final = 2
DEFAULT_SEATS: Final = 2
MIN_TIME_LIMIT_S: Final = 30
MAX_TIME_LIMIT_S: Final = 7200
DEFAULT_TIME_LIMIT_S: Final = 600
MAX_MOVE_LEN: Final = 16  # docs/rules.md §1.3 notation; the longest real move is ~10
MAX_RID: Final = 2**31 - 1
MAX_COUNT: Final = 2**31 - 1  # upper bound of n, since, v: keeps ints small and sane
MAX_ID_LEN: Final = 64  # race ids, game ids
MAX_TOKEN_LEN: Final = 128

# --- Operational limits: defaults of docs/protocol.md §7 ----------------------

MAX_FRAME: Final = 4096  # bytes; larger inbound frames close with 1009

DEFAULT_LIMITS: Final[dict[str, int]] = {
    "MAX_FRAME": MAX_FRAME,
    "RATE": 30,  # messages per second per connection
    "BURST": 60,
    "MAX_NAME": MAX_NAME,
    "MAX_SEATS": MAX_SEATS,
    "MIN_TIME_LIMIT_S": MIN_TIME_LIMIT_S,
    "MAX_TIME_LIMIT_S": MAX_TIME_LIMIT_S,
    "TIME_LIMIT_S": DEFAULT_TIME_LIMIT_S,
    "MAX_RACES_PER_PLAYER": 8,
    "COUNTDOWN": 3000,  # ms
    "SPECTATOR_DELAY": 10_000,  # ms
    "SPECTATOR_FLUSH": 200,  # ms
    "OUTBOUND_QUEUE": 256,  # messages
    "HELLO_TIMEOUT": 10,  # s
    "SESSION_TTL": 7 * 24 * 3600,  # s
    "MAX_CONN_PER_ADDR": 64,
    "MAX_CONN_PER_PLAYER": 8,
    "NEW_SESSIONS_PER_MIN": 30,  # hellos without a token, per address
    "FRESH_SESSION_TTL": 6 * 3600,  # s, until a token's player has played
    "RATE_CLOSE": 200,  # rate-limited messages in a row before 1008
    "OUTBOUND_BYTES": 256 * 1024,
    "RESYNC_EVENTS": 256,
    "QUICK_BOT_AFTER_S": 20,  # 0: never
    "ARENA_UPDATE": 1000,  # ms
    "HINT_WAIT_S": 5,  # s, then solver-busy
    "ANALYSIS_WAIT_S": 20,  # s, then solver-busy (the analysis goes on)
}
