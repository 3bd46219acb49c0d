"""TEMPORARY: a private redis-server for tests/daily until tests/conftest.py
provides the shared session-scoped one; remove this file then."""
from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from server.embedded_redis import EmbeddedRedis


@pytest.fixture(scope="session")
def daily_redis_url(tmp_path_factory):
    with EmbeddedRedis(tmp_path_factory.mktemp("daily-redis"), appendonly=False) as srv:
        yield srv.url


@pytest.fixture
async def r(daily_redis_url):
    client = aioredis.Redis.from_url(daily_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()
