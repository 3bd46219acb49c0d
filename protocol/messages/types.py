"""Typed definitions of every message of docs/protocol.md (version 1).

Each message is a `msgspec.Struct` tagged on the `t` field, so the two unions
`ClientMessage` and `ServerMessage` decode in one pass with the tag choosing
the type. Conventions:

* **Client → server** messages (`ClientMsg` subclasses) forbid unknown keys
  (a typo never passes silently) and carry their range/size constraints as
  `msgspec.Meta` annotations, so decoding *is* validation.
  Every optional field of a client message defaults to None, so that absent
  and nil decode to the same value (docs/protocol.md §1); the handler applies
  the documented default (`seats` 2, `ready` true, ...).
* **Server → client** messages (`ServerMsg` subclasses) accept unknown keys, so
  an older client keeps working when a newer server adds a field.
* `omit_defaults=True` everywhere: optional fields that hold their default
  (`rid=None`, `dup=False`, `view=None`, ...) are not sent. Fields the spec
  calls "int or nil" have *no* default, so they are always present (as nil);
  the few of them that a decoder must also accept absent (a row stored before
  the field existed) keep a default in a struct with `omit_defaults=False`
  (`ResultRow`), so they are sent all the same.
* All base classes are `kw_only`, so construct messages with keywords:
  `Move(race="r1", n=0, move="draw", rid=7)`.

Two wire tags are used in both directions with different shapes; the Python
names differ: client `Start` (host starts a race) vs server `Started` (the
start event), client `Replay` (request) vs server `ReplayData` (reply).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias, get_args

import msgspec

from .constants import (
    MAX_COUNT,
    MAX_ID_LEN,
    MAX_MOVE_LEN,
    MAX_NAME,
    MAX_RID,
    MAX_SEATS,
    MAX_TIME_LIMIT_S,
    MAX_TOKEN_LEN,
    MIN_QUICK_SEATS,
    MIN_SEATS,
    MIN_TIME_LIMIT_S,
)

# --- constrained field types --------------------------------------------------

Rid = Annotated[int, msgspec.Meta(ge=0, le=MAX_RID)]
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]
RaceId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
GameId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
MoveText = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_MOVE_LEN)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN_LEN)]
Invite = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
# Printable: no control or invisible format characters (C0, DEL, C1, zero-width,
# bidi overrides, BOM, line separators) and no leading/trailing whitespace.
NAME_PATTERN = (
    r"^(?!\s)[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u2064\ufeff]+(?<!\s)$"
)
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)]
Seats = Annotated[int, msgspec.Meta(ge=MIN_SEATS, le=MAX_SEATS)]
QuickSeats = Annotated[int, msgspec.Meta(ge=MIN_QUICK_SEATS, le=MAX_SEATS)]
TimeLimit = Annotated[int, msgspec.Meta(ge=MIN_TIME_LIMIT_S, le=MAX_TIME_LIMIT_S)]


# --- client → server ------------------------------------------------------------


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

DateText = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}$")]  # YYYY-MM-DD, UTC
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

ArenaId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9-]*$")]


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
    name: Annotated[str, msgspec.Meta(max_length=MAX_NAME * 2)] | None = None


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
    | RatingBoard
    | Bot
    | Rematch
)
CLIENT_TYPES: tuple[type[ClientMsg], ...] = get_args(ClientMessage)


# --- nested (untagged) structures of server messages -------------------------------


class Nested(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Base of maps nested in server messages."""


class ResultRow(Nested, omit_defaults=False):
    """Base of the result rows (`end`/`replay` rankings, daily entries, history days):
    every field is sent, defaults included. `last_move_ms` is "int or nil", always
    present (docs/protocol.md §1, §3 `end`); its default only lets rows stored before
    it existed, and messages of servers that left it out, decode as nil."""


class PlayerInfo(Nested):
    """A seated player in a race snapshot."""

    player: str
    name: str
    ready: bool
    n: int
    home: int
    status: str  # PlayerStatus
    at: int | None  # time of the last status change; nil before the start
    berserk: bool = False  # an arena player on half the clock (docs/protocol.md §5a)


class RankEntry(ResultRow):
    rank: int  # 1-based
    player: str
    name: str
    status: str
    won: bool
    home: int
    moves: int
    time_ms: int | None  # start → win/finish; nil for a timeout
    home_at_ms: int | None  # start → the moment the final `home` was reached
    last_move_ms: int | None = None  # start → the player's last move; nil with none (shown, not ranked)


class SummaryPlayer(Nested):
    name: str
    home: int
    status: str


class RaceSummary(Nested):
    """One entry of `race_list`."""

    race: str
    game: str
    status: str
    players: list[SummaryPlayer]
    total: int
    starts_at: int | None
    deadline: int | None
    spectators: int
    rated: bool = False  # a rated race (docs/protocol.md §9)


class BoardView(Nested):
    player: str
    n: int
    view: str


class ReplayPlayer(Nested):
    player: str
    name: str
    moves: list[tuple[str, int]]  # [move, at]


class You(Nested):
    """A seated player's own state inside `state`."""

    n: int
    view: str
    legal: list[str]
    home: int
    status: str


# --- server → client ----------------------------------------------------------------


class ServerMsg(
    msgspec.Struct,
    tag_field="t",
    omit_defaults=True,
    kw_only=True,
):
    """Base of every server → client message. `rid` only on direct replies."""

    rid: int | None = None


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


class RaceSnapshot(ServerMsg, tag="race"):
    race: str
    ver: int
    game: str
    status: str  # RaceStatus
    private: bool
    seats: int
    time_limit_s: int
    host: str  # "" for quick-match races
    created: int
    starts_at: int | None
    deadline: int | None
    commitment: str
    seed: str | None  # only once finished
    total: int
    players: list[PlayerInfo]
    ranking: list[RankEntry] | None
    invite: str | None = None  # a private race's secret: only in direct replies to its players
    certified: bool | None = None  # the deal was proved winnable (its proof is published at the end)
    rated: bool = False  # a rated race (docs/protocol.md §9); absent: casual


class Queued(ServerMsg, tag="queued"):
    game: str
    seats: int
    rated: bool = False


class Started(ServerMsg, tag="start"):
    """The start event, to each player: their own view of the deal."""

    race: str
    ver: int
    starts_at: int
    deadline: int
    commitment: str
    total: int
    view: str
    n: int  # always 0: required so that raw clients see it on the wire


class Ack(ServerMsg, tag="ack", gc=False):
    race: str
    n: int  # the new move count
    ver: int  # race version of the progress event this move produced (dup: current)
    move: str
    revealed: list[tuple[str, str]]  # [pile, card] that became visible
    home: int
    won: bool
    status: str
    at: int
    dup: bool = False  # a retried duplicate, acknowledged again, not re-applied
    view: str | None = None  # only if the move asked for it
    legal: list[str] | None = None  # only if the move asked for it


class Progress(ServerMsg, tag="progress", gc=False):
    race: str
    ver: int
    player: str
    n: int
    home: int
    total: int
    status: str
    at: int


class End(ServerMsg, tag="end"):
    race: str
    ver: int
    seed: str | None  # nil for a daily attempt's race (the daily reveals it after the close)
    ranking: list[RankEntry]
    proof: list[str] | None = None  # a certified deal: the solver's winning line
    par: int | None = None  # its length in moves


RaceEvent: TypeAlias = RaceSnapshot | Progress | End


class State(ServerMsg, tag="state"):
    """Reply to `resync` (and follow-up of `out-of-sync`).

    `race` is a full snapshot (it carries its own `t: "race"`); `events` are
    the public race events after `since`, oldest first, or nil if too old.
    """

    race: RaceSnapshot
    you: You | None = None
    events: list[RaceEvent] | None = None


class ReplayData(ServerMsg, tag="replay"):
    race: str
    game: str
    rules_version: int
    deal_version: int
    seed: str
    ranking: list[RankEntry]
    players: list[ReplayPlayer]
    proof: list[str] | None = None  # a certified deal: the solver's winning line
    par: int | None = None  # its length in moves


class RaceList(ServerMsg, tag="race_list"):
    races: list[RaceSummary]


class Boards(ServerMsg, tag="boards"):
    race: str
    at: int
    boards: list[BoardView]


# --- daily challenges (docs/protocol.md §5) -------------------------------------------


class DailyEntry(ResultRow):
    """One entry of a daily leaderboard."""

    rank: int  # 1-based; equal results share a rank
    player: str
    name: str
    status: str
    won: bool
    home: int
    total: int
    moves: int
    time_ms: int | None
    home_at_ms: int | None
    race: str
    last_move_ms: int | None = None  # as in RankEntry


class DailyYou(Nested):
    race: str  # your attempt's race
    status: str  # playing, done
    entry: DailyEntry | None  # once done


class DailyInfo(ServerMsg, tag="daily"):
    game: str
    date: str
    status: str  # open, closed
    opens: int
    closes: int
    commitment: str
    seed: str | None  # only once closed
    time_limit_s: int
    total: int
    entries: int
    final: bool
    rules_version: int
    deal_version: int
    you: DailyYou | None
    certified: bool | None = None  # the day's deal was proved winnable (server setting, per game)
    proof: list[str] | None = None  # once closed, for a certified deal: the solver's winning line


class LeaderboardData(ServerMsg, tag="leaderboard"):
    game: str
    date: str
    status: str
    final: bool
    count: int
    top: list[DailyEntry]
    around: list[DailyEntry]
    me: DailyEntry | None


class LeaderboardUpdate(ServerMsg, tag="leaderboard_update"):
    """To watchers of a board: an attempt has ended (ranks below it may have moved)."""

    game: str
    date: str
    entry: DailyEntry
    count: int


class HistoryDay(ResultRow):
    date: str
    status: str
    won: bool
    home: int
    total: int
    moves: int
    time_ms: int | None
    home_at_ms: int | None
    race: str
    rank: int | None
    count: int
    last_move_ms: int | None = None  # as in RankEntry


class HistoryData(ServerMsg, tag="history"):
    player: str
    game: str
    today: str
    played: int
    wins: int
    streak: int
    best_streak: int
    win_streak: int
    best_win_streak: int
    days: list[HistoryDay]


class DailyReplayPlayer(Nested):
    player: str
    name: str
    starts_at: int | None
    race: str | None
    moves: list[tuple[str, int]]  # [move, at]


class DailyReplayData(ServerMsg, tag="daily_replay"):
    game: str
    date: str
    rules_version: int
    deal_version: int
    seed: str
    commitment: str
    total: int
    ranking: list[RankEntry]
    players: list[DailyReplayPlayer]


# --- arenas (docs/protocol.md §5a) ----------------------------------------------------


class ArenaSummary(Nested):
    id: str
    game: str
    name: str
    starts: int
    ends: int
    seats: int
    berserk: bool
    time_limit_s: int
    status: str  # upcoming, running, over
    final: bool  # the final standings are recorded
    players: int  # joined players


class ArenaListData(ServerMsg, tag="arena_list"):
    now: int
    arenas: list[ArenaSummary]


class ArenaRace(Nested):
    race: str
    rank: int
    points: int


class ArenaData(ServerMsg, tag="arena"):
    """One arena and your place in it."""

    now: int
    arena: ArenaSummary
    joined: bool  # you are paired while it runs
    race: str | None  # your race being played
    races: list[ArenaRace]  # your finished races, oldest first
    featured: str | None


class ArenaRow(Nested):
    rank: int  # 1-based, unique (ties broken per docs/arenas.md)
    player: str
    name: str
    points: int
    races: int
    wins: int
    streak: int
    fire: bool  # on a streak: the next win counts double


class ArenaStandingsData(ServerMsg, tag="arena_standings"):
    arena: str
    status: str
    final: bool
    count: int
    top: list[ArenaRow]
    me: ArenaRow | None
    around: list[ArenaRow]
    featured: str | None


class ArenaUpdate(ServerMsg, tag="arena_update"):
    """To watchers of an arena, at most once per ARENA_UPDATE ms: the standings have
    changed or the featured race has."""

    arena: str
    status: str
    final: bool
    count: int
    top: list[ArenaRow]
    me: ArenaRow | None
    around: list[ArenaRow]
    featured: str | None


# --- the solver: hints and post-race analysis (docs/protocol.md §3) ----------------


class HintData(ServerMsg, tag="hint"):
    race: str
    n: int  # the move count the hint is for
    move: str | None  # nil: no move helps (the player is stuck)


class PlayerAnalysis(Nested):
    player: str
    name: str
    verdict: str  # won, never-winnable, lost-at, still-winnable, unknown
    text: str  # one sentence, e.g. "won until move 37, t2>f5; a winning line from there: ..."
    last_winnable: int | None  # moves after which the game was still proved winnable
    first_lost: int | None  # moves after which it was proved lost
    losing_move: str | None  # the move number last_winnable + 1, that lost it
    line: list[str]  # a winning line from the position after last_winnable moves


class AnalysisData(ServerMsg, tag="analysis"):
    race: str
    players: list[PlayerAnalysis]


# --- accounts and ratings (docs/protocol.md §9) ---------------------------------------


class Account(ServerMsg, tag="account"):
    """Reply to `claim` and `login`: the account and a session token for `hello`."""

    player: str
    name: str
    token: str


class RatingValue(Nested):
    """A rating as players see it: `rating` is the displayed number."""

    rating: int
    mu: float
    sigma: float
    races: int
    provisional: bool


class RatedRace(Nested):
    """One rated race in a rating's history (newest first)."""

    race: str
    game: str
    at: int
    rank: int
    players: int
    weight: float
    before: RatingValue
    after: RatingValue


class GameRating(Nested):
    game: str
    rating: RatingValue
    history: list[RatedRace]


class DailyStreak(Nested):
    game: str
    played: int
    wins: int
    streak: int
    best_streak: int


class ArenaPodium(Nested):
    """A podium place in a finished arena (docs/protocol.md §5a)."""

    arena: str
    name: str
    game: str
    ends: int
    rank: int
    points: int
    players: int


class ProfileData(ServerMsg, tag="profile"):
    player: str
    name: str
    created: int
    ratings: list[GameRating]
    races: list[RatedRace]  # latest rated races of every game, newest first
    daily: list[DailyStreak]
    arenas: list[ArenaPodium] | None = None  # podium places in arenas, latest first; nil: none


class RatingEntry(Nested):
    rank: int
    player: str
    name: str
    rating: int
    mu: float
    sigma: float
    races: int


class RatingBoardData(ServerMsg, tag="rating_board"):
    game: str
    count: int
    top: list[RatingEntry]
    around: list[RatingEntry]
    me: RatingEntry | None


class RatingPlayer(Nested):
    player: str
    name: str
    rank: int
    weight: float
    before: RatingValue
    after: RatingValue


class RatingChange(ServerMsg, tag="rating"):
    """To every player of a rated race once its ratings are updated."""

    race: str
    game: str
    players: list[RatingPlayer]


class RematchOffer(ServerMsg, tag="rematch"):
    """To each player of a finished race: `by` offers a rematch, race `rematch` (accept: `join`)."""

    race: str  # the finished race
    rematch: str  # the new race
    by: str  # player id of who asked
    name: str  # their name
    invite: str | None = None  # the new race's invite, if it is private (for `join`)


ServerMessage: TypeAlias = (
    Welcome
    | Pong
    | Ok
    | Error
    | RaceSnapshot
    | Queued
    | Started
    | Ack
    | Progress
    | End
    | State
    | ReplayData
    | RaceList
    | Boards
    | DailyInfo
    | LeaderboardData
    | LeaderboardUpdate
    | HistoryData
    | DailyReplayData
    | ArenaListData
    | ArenaData
    | ArenaStandingsData
    | ArenaUpdate
    | HintData
    | AnalysisData
    | Account
    | ProfileData
    | RatingBoardData
    | RatingChange
    | RematchOffer
)
SERVER_TYPES: tuple[type[ServerMsg], ...] = get_args(ServerMessage)
