"""tests/certify: a server with one solver worker process and small pools."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

GAME = "racing-aces"

# Small pools and one worker: enough to see the refill without loading the machine.
CERTIFY = dict(
    certified_games=GAME,
    certify_workers=1,
    certify_pool=2,
    certify_batch=6,
    certify_nodes=2500,
    analysis_nodes=3000,
)


@pytest.fixture
async def r(clean_redis):
    """A `redis.asyncio` client on the test database (bytes responses, like the server's)."""
    client = aioredis.Redis.from_url(clean_redis)
    yield client
    await client.aclose()
