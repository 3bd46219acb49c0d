"""The certified pools in Redis (keys.py): one list per game."""

from __future__ import annotations

import json
from typing import Any

from . import keys


async def take(redis: Any, game: str) -> tuple[str, list[str]] | None:
    """One certified deal (seed, winning line), removed from the pool atomically
    (LPOP): two processes never deal the same entry. None when the pool is empty."""
    raw = await redis.lpop(keys.pool(game))
    if raw is None:
        return None
    entry = json.loads(raw)
    return str(entry["seed"]), [str(mv) for mv in entry["line"]]


async def add(redis: Any, game: str, found: list[tuple[str, list[str]]]) -> None:
    if found:
        await redis.rpush(keys.pool(game), *[json.dumps({"seed": s, "line": line}) for s, line in found])


async def size(redis: Any, game: str) -> int:
    return int(await redis.llen(keys.pool(game)))
