"""Waiting on a condition, never on a fixed sleep, so that the suite passes on a loaded machine.

`wait_until(predicate)` (threads, plain tests) and `await until(predicate)` (asyncio) poll
`predicate()` until it returns something true, and return that value; past the deadline they
raise `TimeoutError` naming what was awaited. The default deadline is generous: a healthy run
never comes near it, and only a broken one pays it. `until` also takes an async predicate.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# Long enough for two copies of the suite sharing two busy cores; a test that passes waits far less.
DEADLINE = 30.0


def wait_until(
    predicate: Callable[[], T | None],
    timeout: float = DEADLINE,
    interval: float = 0.01,
    what: str = "condition",
) -> T:
    """Block until `predicate()` is true; its value, or `TimeoutError` after `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= end:
            raise TimeoutError(f"{what}: not met within {timeout} s (last value: {_short(value)})")
        time.sleep(interval)


async def until(
    predicate: Callable[[], Any],
    timeout: float = DEADLINE,
    interval: float = 0.01,
    what: str = "condition",
) -> Any:
    """Let the event loop run until `predicate()` (or its awaited result) is true; see `wait_until`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= end:
            raise TimeoutError(f"{what}: not met within {timeout} s (last value: {_short(value)})")
        await asyncio.sleep(interval)


# How close to the end of the UTC day a test that starts a daily attempt must not begin.
MIDNIGHT_MARGIN_S = 300
DAY_S = 86_400


def wait_for_next_day(now_s: float) -> float:
    """Seconds a `daily` test starting at `now_s` (Unix time) waits: 0, or until just past midnight."""
    left = DAY_S - now_s % DAY_S
    return left + 1 if left < MIDNIGHT_MARGIN_S else 0.0


def _short(value: object) -> str:
    """The predicate's last value for the timeout's message (a failing run shows what it saw)."""
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + "…"
