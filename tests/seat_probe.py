"""What Redis holds of a player's seats, for the seat-limit tests (read straight from Redis:
the server's own views of it are what those tests check)."""

from __future__ import annotations

import redis.asyncio as aioredis
from redis_replies import text

from server.storage.keys import seats_key


async def seat_set(redis_url: str, pid: str) -> set[str]:
    """The ids in the player's seat set: races, and queue entries' holds."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        return {text(x) for x in await r.smembers(seats_key(pid))}
    finally:
        await r.aclose()
