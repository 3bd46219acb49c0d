"""A Redis read or step tried a few times before it counts as failed: right after a blip (or
Redis back from a restart), pooled connections may still be stale, and the next try works."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .core.gap_fill import ATTEMPTS, retry_delay_s

T = TypeVar("T")


async def tried(
    call: Callable[[], Awaitable[T]], unless: tuple[type[Exception], ...] = (), attempts: int = ATTEMPTS
) -> T:
    """`call()`, tried `attempts` times (50 ms apart, doubling): the last failure is raised, and
    at once one of `unless` (a refusal, which no second try changes)."""
    for attempt in range(attempts - 1):
        try:
            return await call()
        except unless:
            raise
        except Exception:
            await asyncio.sleep(retry_delay_s(attempt))
    return await call()


async def retried(
    call: Callable[[], Awaitable[T]], failed: str, log: logging.Logger, attempts: int = ATTEMPTS
) -> T | None:
    """`call()`, tried `attempts` times (`tried`); None, and one warning `failed` on `log`, if
    every try raised."""
    try:
        return await tried(call, attempts=attempts)
    except Exception:
        log.warning(failed, exc_info=True)
        return None


async def until_answered(
    call: Callable[[], Awaitable[T]],
    within_s: float,
    failed: str,
    log: logging.Logger,
    first_s: float = 0.2,
    most_s: float = 10.0,
) -> T | None:
    """`call()` again and again, first `first_s` from now, then ever later (doubling, up to
    `most_s` apart), until it returns (its result) or `within_s` has passed: then None, and one
    warning `failed` on `log`. For a step that must be done once Redis answers again, which a
    background task waits for (a cancel, the server stopping, ends it)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within_s
    delay = first_s
    while True:
        await asyncio.sleep(min(delay, max(end - loop.time(), 0)))
        try:
            return await call()
        except Exception:
            if loop.time() >= end:
                log.warning(failed, exc_info=True)
                return None
        delay = min(delay * 2, most_s)
