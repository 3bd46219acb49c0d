"""Rated races whose end may still have to be rated.

The end of a race is rated by the process whose end commit won, right after
that commit. Should that process die in between, nothing else would rate
the race; so every rated race is listed here, with the moment from which it
is worth checking, from its creation until it has been rated. Any process
may look at the due ones (``due``) and rate those that have finished (rating
twice is harmless: ``Ratings.record_race`` applies a race once).
"""

from __future__ import annotations

from typing import Any

from . import keys
from .common import text


class PendingRaces:
    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def add(self, game: str, race: str, check_at_ms: int) -> None:
        await self.redis.zadd(keys.pending(game), {race: check_at_ms})

    async def remove(self, game: str, race: str) -> bool:
        """True if this call took the race out (of several at once, one does)."""
        return bool(await self.redis.zrem(keys.pending(game), race))

    async def due(self, game: str, now_ms: int, limit: int = 20) -> list[str]:
        raw = await self.redis.zrangebyscore(keys.pending(game), "-inf", now_ms, start=0, num=limit)
        return [text(r) for r in raw]
