"""`until_answered` (server/retries.py): a step tried again in the background until Redis
answers, ever less often, and given up after its window (handlers/seating.py, "unknown")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest
from waiting import until

from server.retries import until_answered

log = logging.getLogger("test.until_answered")


def failing(times: int) -> tuple[dict[str, list[float]], Callable[[], Awaitable[str]]]:
    """A call that raises its first `times` times, then returns "done"; the loop times of its calls."""
    seen: dict[str, list[float]] = {"at": []}

    async def call() -> str:
        seen["at"].append(asyncio.get_running_loop().time())
        if len(seen["at"]) <= times:
            raise ConnectionError("redis is not answering")
        return "done"

    return seen, call


async def test_it_returns_once_the_call_does_backing_off_meanwhile():
    seen, call = failing(3)
    assert await until_answered(call, 60, "never", log, first_s=0.01, most_s=0.03) == "done"
    gaps = [b - a for a, b in zip(seen["at"], seen["at"][1:], strict=False)]
    assert len(seen["at"]) == 4
    assert gaps[0] >= 0.019 and gaps[1] >= 0.029 and gaps[2] >= 0.029  # doubling, up to most_s


async def test_it_gives_up_after_its_window_with_one_warning(caplog: pytest.LogCaptureFixture):
    seen, call = failing(10**6)
    start = asyncio.get_running_loop().time()
    with caplog.at_level(logging.WARNING, logger=log.name):
        assert await until_answered(call, 0.3, "given up", log, first_s=0.01, most_s=0.05) is None
    assert seen["at"][-1] - start >= 0.3  # its last try at the end of the window
    assert len(seen["at"]) <= 1 + 0.3 / 0.01  # never more often than first_s
    assert [r.message for r in caplog.records if r.name == log.name] == ["given up"]


async def test_a_cancel_ends_it():
    seen, call = failing(10**6)
    task = asyncio.ensure_future(until_answered(call, 60, "never", log, first_s=0.01))
    await until(lambda: len(seen["at"]) >= 2, what="two tries")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
