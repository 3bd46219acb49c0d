"""The messages the server sends (docs/protocol.md), typed; `ServerMessage` is their union.

Each is a `msgspec.Struct` tagged on the `t` field, like the client's
messages (client_messages.py), but they accept unknown keys, so an older
client keeps working when a newer server adds a field. `omit_defaults=True`
everywhere: optional fields that hold their default (`rid=None`,
`dup=False`, `view=None`, ...) are not sent. Fields the spec calls "int or
nil" have *no* default, so they are always present (as nil); the few of
them that a decoder must also accept absent (a row stored before the field
existed) keep a default in a struct with `omit_defaults=False`
(`ResultRow`), so they are sent all the same. Construct them with keywords.
"""

from __future__ import annotations

from typing import TypeAlias, get_args

import msgspec

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
    account: bool = False  # seated as an account (docs/protocol.md §3); absent: a guest or a bot


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
    account: bool = False  # the player raced as an account (false: a guest or a bot)


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
    account: bool = False  # as in PlayerInfo


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
    daily: bool = False  # a daily challenge attempt (§5); absent: not one
    arena: str | None = None  # the arena that paired this race (§8); absent: none


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
    commitment: str  # sha256(seed), as the race published it before its start
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
    account: bool = False  # the player is an account now (its name is the account's)


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
    account: bool = False  # as in DailyEntry


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
    # The player is an account (a client may link to their `profile`); absent: a guest or a bot.
    account: bool = False


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


class RecentRace(Nested):
    """One of the caller's own finished races in `recent_races` (newest first). Never a seed."""

    race: str
    game: str
    kind: str  # daily, arena, bot, quick, private, public (server/core/recent.py `kind`)
    at: int  # when the race ended
    rank: int  # the player's place, 1-based (ties share one)
    players: int  # players in the ranking
    status: str  # won, finished, timeout
    home: int
    total: int  # cards in the game
    moves: int
    time_ms: int | None  # start -> win or finish; nil for a timeout (as in RankEntry)
    rated: bool
    arena: str | None = None  # the arena's id, for an arena race
    date: str | None = None  # a daily attempt's day (YYYY-MM-DD, UTC): the day it was played
    private: bool = False  # a private race (its players replay it as themselves: no invite)
    before: RatingValue | None = None  # a rated race once rated: the rating before and after it
    after: RatingValue | None = None


class RecentRaces(ServerMsg, tag="recent_races"):
    races: list[RecentRace]  # newest first


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
    account: bool = False  # who asked is an account (as in PlayerInfo)


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
    | RecentRaces
    | RatingBoardData
    | RatingChange
    | RematchOffer
)
SERVER_TYPES: tuple[type[ServerMsg], ...] = get_args(ServerMessage)
