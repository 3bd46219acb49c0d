"""The login session each player of the rated pool joined from.

A rated race records each seat's login session (``rating.check_entrants``
wants distinct sessions). A player joins the pool from one connection, but
any process may form their race, so the session travels through Redis,
next to the pool in the same slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import keys
from .common import text

TTL_S = 3600


class PoolSessions:
    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def put(self, game: str, player: str, session: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.pool_sessions(game), player, session)
        pipe.expire(keys.pool_sessions(game), TTL_S)
        await pipe.execute()

    async def get(self, game: str, player: str) -> str:
        """The session of ``player``'s pool entry ("" if unknown)."""
        raw = await self.redis.hget(keys.pool_sessions(game), player)
        return text(raw) if raw is not None else ""

    async def forget(self, game: str, player: str) -> None:
        await self.redis.hdel(keys.pool_sessions(game), player)

    async def restore(self, game: str, sessions: dict[str, str]) -> None:
        """Put back sessions ``take`` forgot (for players put back in the pool), unless the
        player joined the pool again meanwhile (a newer session)."""
        if not sessions:
            return
        pipe = self.redis.pipeline(transaction=False)
        for player, session in sessions.items():
            pipe.hsetnx(keys.pool_sessions(game), player, session)
        pipe.expire(keys.pool_sessions(game), TTL_S)
        await pipe.execute()

    async def take(self, game: str, players: Sequence[str]) -> dict[str, str]:
        """The sessions of a formed group ("" where unknown), forgotten afterwards."""
        key = keys.pool_sessions(game)
        raw = await self.redis.hmget(key, list(players))
        await self.redis.hdel(key, *players)
        return {p: text(v) if v is not None else "" for p, v in zip(players, raw)}
