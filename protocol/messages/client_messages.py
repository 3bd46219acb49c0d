"""The messages a client sends (docs/protocol.md), typed; `ClientMessage` is their union.

Each is a `msgspec.Struct` tagged on the `t` field, so the union decodes in
one pass with the tag choosing the type. They forbid unknown keys (a typo
never passes silently) and carry their range and size constraints as
`msgspec.Meta` annotations (fields.py), so decoding *is* validation. Every
optional field defaults to None, so that absent and nil decode to the same
value (docs/protocol.md §1); the handler applies the documented default
(`seats` 2, `ready` true, ...). All are `kw_only`: construct them with
keywords, `Move(race="r1", n=0, move="draw", rid=7)`.

Two wire tags are used in both directions with different shapes; the Python
names differ from the server's: `Start` (the host starts a race) vs
`Started` (the start event), `Replay` (request) vs `ReplayData` (reply).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias, get_args

import msgspec

from .constants import MAX_ID_LEN, MAX_NAME
from .fields import (
    NAME_PATTERN,
    Count,
    GameId,
    Invite,
    MoveText,
    Name,
    QuickSeats,
    RaceId,
    Rid,
    Seats,
    TimeLimit,
    Token,
)


class ClientMsg(
    msgspec.Struct,
    tag_field="t",
    forbid_unknown_fields=True,
    omit_defaults=True,
    kw_only=True,
    frozen=True,
):
    """Base of every client → server message. `rid` is echoed in the reply."""

    rid: Rid | None = None


class Hello(ClientMsg, tag="hello", frozen=True):
    v: Count
    token: Token | None = None
    name: Name | None = None


class Ping(ClientMsg, tag="ping", frozen=True):
    pass


class Create(ClientMsg, tag="create", frozen=True):
    game: GameId
    seats: Seats | None = None  # absent or nil: DEFAULT_SEATS
    # Absent: the server's TIME_LIMIT_S (docs/protocol.md §7), DEFAULT_TIME_LIMIT_S unless configured.
    time_limit_s: TimeLimit | None = None
    private: bool | None = None  # absent or nil: false
    winnable: bool | None = None  # deal a seed the solver proved winnable (docs/protocol.md §3 `create`)
    hints: bool | None = None  # false: no `hint` in this race, even solo
    rated: bool | None = None  # absent or nil: false (casual); true needs a logged-in account


class Join(ClientMsg, tag="join", frozen=True):
    race: RaceId
    invite: Invite | None = None  # a private race's secret, from its link


class Leave(ClientMsg, tag="leave", frozen=True):
    race: RaceId


class Ready(ClientMsg, tag="ready", frozen=True):
    race: RaceId
    ready: bool | None = None  # absent or nil: true


class Start(ClientMsg, tag="start", frozen=True):
    """The host starts the race with the players present (all ready)."""

    race: RaceId


class Quick(ClientMsg, tag="quick", frozen=True):
    game: GameId
    seats: QuickSeats | None = None  # absent or nil: DEFAULT_SEATS
    rated: bool | None = None  # absent or nil: false; true: matched by rating (accounts only)


class Unqueue(ClientMsg, tag="unqueue", frozen=True):
    game: GameId


class Move(ClientMsg, tag="move", gc=False, frozen=True):
    race: RaceId
    n: Count
    move: MoveText
    view: bool | None = None  # absent or nil: false


class Finish(ClientMsg, tag="finish", frozen=True):
    race: RaceId


class Resync(ClientMsg, tag="resync", frozen=True):
    race: RaceId
    since: Count | None = None
    invite: Invite | None = None


class Replay(ClientMsg, tag="replay", frozen=True):
    race: RaceId
    invite: Invite | None = None


class Races(ClientMsg, tag="races", frozen=True):
    game: GameId | None = None


class Spectate(ClientMsg, tag="spectate", frozen=True):
    race: RaceId
    invite: Invite | None = None


class Unspectate(ClientMsg, tag="unspectate", frozen=True):
    race: RaceId


# --- daily challenges (docs/protocol.md §5) ---------------------------------------

DateText = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")]  # YYYY-MM-DD, UTC
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]


class Daily(ClientMsg, tag="daily", frozen=True):
    """The facts of a daily (default: today's); reply `daily` (DailyInfo)."""

    game: GameId
    date: DateText | None = None


class DailyStart(ClientMsg, tag="daily_start", frozen=True):
    """Start (or resume) today's one ranked attempt; reply `race`."""

    game: GameId


class Leaderboard(ClientMsg, tag="leaderboard", frozen=True):
    """A daily's board; `watch` also subscribes to its live `leaderboard_update`s."""

    game: GameId
    date: DateText | None = None
    top: Annotated[int, msgspec.Meta(ge=1, le=100)] | None = None  # absent or nil: 10
    around: Annotated[int, msgspec.Meta(ge=0, le=25)] | None = None  # absent or nil: 3
    watch: bool | None = None  # absent or nil: false


class LeaderboardUnwatch(ClientMsg, tag="leaderboard_unwatch", frozen=True):
    game: GameId
    date: DateText | None = None


class History(ClientMsg, tag="history", frozen=True):
    game: GameId
    player: PlayerId | None = None  # default: you
    days: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None  # absent or nil: 30


class DailyReplay(ClientMsg, tag="daily_replay", frozen=True):
    """The published replays of a closed daily (the top entries), or one player's."""

    game: GameId
    date: DateText
    player: PlayerId | None = None


# --- arenas (docs/protocol.md §5a) ------------------------------------------------------

ArenaId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9-]*\Z")]


class Arenas(ClientMsg, tag="arenas", frozen=True):
    """The arenas running, starting within the hour, or ended within the day; reply `arena_list`."""


class ArenaGet(ClientMsg, tag="arena", frozen=True):
    """One arena, with your place in it; reply `arena`."""

    arena: ArenaId


class ArenaJoin(ClientMsg, tag="arena_join", frozen=True):
    """Join (or rejoin) until the arena ends; reply `arena`."""

    arena: ArenaId


class ArenaWithdraw(ClientMsg, tag="arena_withdraw", frozen=True):
    """No more pairing (a race in progress still counts); reply `arena`."""

    arena: ArenaId


class ArenaStandings(ClientMsg, tag="arena_standings", frozen=True):
    """The standings; `watch` also subscribes to live `arena_update`s."""

    arena: ArenaId
    top: Annotated[int, msgspec.Meta(ge=1, le=100)] | None = None  # absent or nil: 10
    around: Annotated[int, msgspec.Meta(ge=0, le=25)] | None = None  # absent or nil: 2
    watch: bool | None = None  # absent or nil: false


class ArenaUnwatch(ClientMsg, tag="arena_unwatch", frozen=True):
    arena: ArenaId


class ArenaBerserk(ClientMsg, tag="arena_berserk", frozen=True):
    """Take half the clock of your arena race before it starts; reply `race`."""

    arena: ArenaId
    race: RaceId


class ArenaCreate(ClientMsg, tag="arena_create", frozen=True):
    """Create an arena (only where the server allows it: ARENA_CREATE); reply `arena`."""

    arena: ArenaId
    game: GameId
    duration_ms: Annotated[int, msgspec.Meta(ge=0)]
    starts: Annotated[int, msgspec.Meta(ge=0)] | None = None  # absent or nil: now
    seats: Annotated[int, msgspec.Meta(ge=2, le=4)] | None = None  # absent or nil: 2
    time_limit_s: TimeLimit | None = None  # absent or nil: 300
    berserk: bool | None = None  # absent or nil: true
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME * 2, pattern=NAME_PATTERN)] | None = (
        None
    )


# --- the solver: hints and post-race analysis (docs/protocol.md §3 `hint`, `analysis`) ---


class Hint(ClientMsg, tag="hint", frozen=True):
    race: RaceId


class Analysis(ClientMsg, tag="analysis", frozen=True):
    race: RaceId
    invite: Invite | None = None


# --- accounts and ratings (docs/protocol.md §9) --------------------------------------

AccountName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
PasswordText = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class Claim(ClientMsg, tag="claim", frozen=True):
    """Make this guest an account (its player id is kept); reply `account`."""

    name: AccountName
    password: PasswordText


class Login(ClientMsg, tag="login", frozen=True):
    """A new session of an account; reply `account` (its token goes in `hello`)."""

    name: AccountName
    password: PasswordText


class Logout(ClientMsg, tag="logout", frozen=True):
    """End this connection's account session; reply `ok`."""


class LogoutAll(ClientMsg, tag="logout_all", frozen=True):
    """End every session of this connection's account; reply `ok`."""


class ChangePassword(ClientMsg, tag="password", frozen=True):
    """Change the password; the account's other sessions end. Reply `ok`."""

    old: PasswordText
    new: PasswordText


class Profile(ClientMsg, tag="profile", frozen=True):
    """An account's profile (default: yours); reply `profile`."""

    player: PlayerId | None = None


class Recent(ClientMsg, tag="recent", frozen=True):
    """Your own latest finished races, newest first (guests and accounts); reply `recent_races`.

    No `player` field: a player's list is theirs alone (docs/protocol.md §9 `recent`).
    """

    # absent or nil: 20; at most 50, the races kept per player (server/storage/recent.py RECENT_CAP)
    limit: Annotated[int, msgspec.Meta(ge=1, le=50)] | None = None


class RatingBoard(ClientMsg, tag="rating_board", frozen=True):
    """A game's rating leaderboard; reply `rating_board`."""

    game: GameId
    top: Annotated[int, msgspec.Meta(ge=1, le=100)] | None = None  # absent or nil: 10
    around: Annotated[int, msgspec.Meta(ge=0, le=25)] | None = None  # absent or nil: 2


# --- bots and rematches (docs/protocol.md §3) ------------------------------------------

BotLevel = Literal["random", "greedy", "search"]


class Bot(ClientMsg, tag="bot", frozen=True):
    """Seat a bot of `level` in a race in its lobby where you sit; reply `ok`."""

    race: RaceId
    level: BotLevel | None = None  # absent: greedy


class Rematch(ClientMsg, tag="rematch", frozen=True):
    """After the end: a new race with the same settings for the same players; reply `race`."""

    race: RaceId


ClientMessage: TypeAlias = (
    Hello
    | Ping
    | Create
    | Join
    | Leave
    | Ready
    | Start
    | Quick
    | Unqueue
    | Move
    | Finish
    | Resync
    | Replay
    | Races
    | Spectate
    | Unspectate
    | Daily
    | DailyStart
    | Leaderboard
    | LeaderboardUnwatch
    | History
    | DailyReplay
    | Arenas
    | ArenaGet
    | ArenaJoin
    | ArenaWithdraw
    | ArenaStandings
    | ArenaUnwatch
    | ArenaBerserk
    | ArenaCreate
    | Hint
    | Analysis
    | Claim
    | Login
    | Logout
    | LogoutAll
    | ChangePassword
    | Profile
    | Recent
    | RatingBoard
    | Bot
    | Rematch
)
CLIENT_TYPES: tuple[type[ClientMsg], ...] = get_args(ClientMessage)
