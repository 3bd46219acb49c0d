"""tests/arena: async Redis clients on the shared redis-server (tests/conftest.py), a fake clock."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis


class FakeClock:
    """The injectable clock: ms, moved by the test."""

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
async def clients(clean_redis):
    """A factory of `redis.asyncio` clients on an empty database, each its own connection
    pool (like separate server processes); bytes responses, like the server's."""
    made: list[aioredis.Redis] = []

    def make() -> aioredis.Redis:
        c = aioredis.Redis.from_url(clean_redis)
        made.append(c)
        return c

    yield make
    for c in made:
        await c.aclose()


#: the start of the arenas of these tests: 2025-12-01 00:00 UTC
T0 = 1_764_547_200_000


@pytest.fixture
def clock() -> FakeClock:
    """A clock at `T0`, the arenas' start."""
    return FakeClock(T0)
