"""tests/ratings: an async Redis client on the shared redis-server (tests/conftest.py),
a test clock, and the two stores over them."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher

from server.ratings.accounts_store import Accounts
from server.ratings.store import Ratings


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


@pytest.fixture
def hasher() -> PasswordHasher:
    """Cheap argon2id parameters: the tests check behaviour, not the cost."""
    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture
def accounts(r, clock, hasher) -> Accounts:
    return Accounts(r, clock=clock, hasher=hasher)


@pytest.fixture
def ratings(r, clock) -> Ratings:
    return Ratings(r, clock=clock)
