"""Server messages of the daily challenges (docs/protocol.md §5) and the arenas (§5a)."""

from __future__ import annotations

from .server_base import Nested, ResultRow, ServerMsg
from .server_race import RankEntry

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
    # start → the end of the attempt's game (as ReplayPlayer's); nil for an attempt recorded
    # before the server kept it
    ended_ms: int | None = None


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
    # Some arenas were left out: at most 100 of each status (server/arena/schedule.py
    # LISTED_PER_STATUS); absent when false.
    more: bool = False


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
