"""tests/ratings: an async Redis client on the shared redis-server (tests/conftest.py)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis


@pytest.fixture
async def r(clean_redis):
    """A `redis.asyncio` client on an empty database (bytes responses, like the server's)."""
    client = aioredis.Redis.from_url(clean_redis)
    yield client
    await client.aclose()


class Clock:
    def __init__(self, ms: int = 1_700_000_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def clock() -> Clock:
    return Clock()
