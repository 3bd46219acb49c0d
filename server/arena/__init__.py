"""Arena tournaments: timed events where joined players race continuously.

Layout
------
``schedule``  arenas, their validation and status, recurring schedules (pure)
``scoring``   points of one race (placement, finish bonus, streak, berserk) and the
              standings order with its packed sorted-set score (pure)
``pairing``   free players into races of close standing, widening with wait (pure)
(the race ranking rule lives in ``protocol.ranking``)
``keys``      the Redis key layout (one hash tag per arena)
``scripts``   the Lua scripts (join, pair, apply once, standings, finalize)
``records``   the plain data the store's calls take and return
``base``      the store's scripts and the arenas (create, get, list)
``results``   apply a race once, the standings, finalize
``store``     ``ArenaStore``: what the race server calls (players and pairing; the rest
              from ``base`` and ``results``)

docs/arenas.md describes the rules and the layout.
"""

from __future__ import annotations

from .pairing import Free, Window, pair
from .schedule import (
    Arena,
    ArenaError,
    Recurrence,
    Schedule,
    arenas_between,
    default_schedule,
    schedule_from_config,
    status,
    validate,
)
from .scoring import RacePoints, Standing, score_race
from .store import Applied, ArenaInfo, ArenaStore, Board, Formed, Prepared, Row

__all__ = [
    "Applied",
    "Arena",
    "ArenaError",
    "ArenaInfo",
    "ArenaStore",
    "Board",
    "Formed",
    "Free",
    "Prepared",
    "RacePoints",
    "Recurrence",
    "Row",
    "Schedule",
    "Standing",
    "Window",
    "arenas_between",
    "default_schedule",
    "pair",
    "schedule_from_config",
    "score_race",
    "status",
    "validate",
]
