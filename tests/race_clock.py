"""Test hook: a race's time runs out soon, by Redis' clock (the server's), however long the
clock it was made with: its stored deadline and its timer move there, so that the clock ends
it as any race whose time ran out."""

from __future__ import annotations

import redis.asyncio as aioredis

from server import storage as S


async def end_clock_later(redis_url: str, rid: str, later_ms: int) -> int:
    """The race ``rid``'s time runs out ``later_ms`` from now. Returns the deadline (ms)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        sec, usec = await r.time()
        deadline = sec * 1000 + usec // 1000 + later_ms
        await r.hset(S.race_key(rid), "deadline", deadline)
        await r.zadd(S.TIMERS, {rid: deadline})
    finally:
        await r.aclose()
    return deadline
