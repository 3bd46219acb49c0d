"""Server messages of accounts and ratings (docs/protocol.md §9): the `account` reply,
profiles, a player's recent races, the rating board and rating changes."""

from __future__ import annotations

from .server_base import Nested, ServerMsg

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
