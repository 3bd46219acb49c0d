"""A Redis read or step tried a few times before it counts as failed: right after a blip (or
Redis back from a restart), pooled connections may still be stale, and the next try works."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..core.gap_fill import ATTEMPTS, retry_delay_s

T = TypeVar("T")


async def retried(call: Callable[[], Awaitable[T]], failed: str, log: logging.Logger) -> T | None:
    """`call()`, tried ATTEMPTS times (50 ms apart, doubling); None, and one warning `failed`
    on `log`, if every try raised."""
    for attempt in range(ATTEMPTS):
        try:
            return await call()
        except Exception:
            if attempt == ATTEMPTS - 1:
                log.warning(failed, exc_info=True)
                return None
            await asyncio.sleep(retry_delay_s(attempt))
    return None
