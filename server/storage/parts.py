"""What the parts of `Store` (``race_records``, ``player_games``, ``players``) share."""

from __future__ import annotations

from typing import Any

from ..config import Settings


class StorePart:
    """The cold-path Redis client and the settings, set by `Store`."""

    redis: Any  # redis-py's asyncio client, or its cluster client
    settings: Settings
    cluster: bool

    async def time_ms(self) -> int:
        """The Redis server's clock (ms): one clock for every process."""
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000
