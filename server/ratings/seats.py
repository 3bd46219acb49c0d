"""The login session each player of the rated pool joined from.

A rated race records each seat's login session (``rating.check_entrants``
wants distinct sessions). A player joins the pool from one connection, but
any process may form their race, so the session travels through Redis,
next to the pool in the same slot, written and taken out with the entry by
the pool's scripts (pool.py ``join``, ``form``, ``leave``, ``release``).
"""

from __future__ import annotations

from typing import Any

from . import keys
from .common import text

TTL_S = 3600


class PoolSessions:
    """Reads the session of a pool entry. The pool's scripts write and take it, with the entry
    (pool.py): a player joining again while their group is being seated keeps the session of
    the new entry."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def get(self, game: str, player: str) -> str:
        """The session of ``player``'s pool entry ("" if unknown)."""
        raw = await self.redis.hget(keys.pool_sessions(game), player)
        return text(raw) if raw is not None else ""
