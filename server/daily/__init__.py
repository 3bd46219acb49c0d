"""Daily challenges and leaderboards, provably fair (docs/protocol.md §5).

Layout
------
``days``      UTC day boundaries and the injectable clock (pure)
``fair``      the server secret, seed = HMAC-SHA256(secret, f"{game}|{date}"),
              its commitment (pure)
(the ranking and its 53-bit sorted-set score live in ``protocol.ranking``)
``history``   days played, wins, play and win streaks (pure)
``keys``      the Redis key layout (one hash tag per game and day)
``scripts``   the Lua scripts (claim, bind, record, board read, finalize)
``deals``     the shared types; the secret, the deal of the day and its info
``boards``    entries, leaderboards, history, finalization, replays
``service``   ``Daily``: attempts and their results; what the gateway calls
``handlers``  the daily requests on the race server
"""

from __future__ import annotations

from protocol.ranking import Result, pack, ranking_key, unpack

from .days import Clock, closes_at, day_of, opens_at, system_clock
from .fair import daily_message, daily_seed, seed_commitment
from .history import Stats, stats
from .service import Attempt, CreateRace, Daily, DailyDeal, DailyError

__all__ = [
    "Attempt",
    "Clock",
    "CreateRace",
    "Daily",
    "DailyDeal",
    "DailyError",
    "Result",
    "Stats",
    "closes_at",
    "daily_message",
    "daily_seed",
    "day_of",
    "opens_at",
    "pack",
    "ranking_key",
    "seed_commitment",
    "stats",
    "system_clock",
    "unpack",
]
