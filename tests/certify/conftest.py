"""tests/certify: an async Redis client on the shared redis-server (tests/conftest.py)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis


@pytest.fixture
async def r(clean_redis):
    """A `redis.asyncio` client on the test database (bytes responses, like the server's)."""
    client = aioredis.Redis.from_url(clean_redis)
    yield client
    await client.aclose()
