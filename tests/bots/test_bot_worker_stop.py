"""A bot worker stops when told to even if a cancel of its lease keeper is lost
(client/bots/stopping.py).

On Python 3.11 a cancel that lands as a redis-py call's send completes is swallowed
(`asyncio.wait_for` in redis-py's `send_packed_command` returns the send's result instead):
the task goes on as if never cancelled. The lease keeper is a loop, so a stopping worker
that cancelled it once waited for it for good (seen in tests/tui's bot race on a loaded
machine: the worker's stop stuck awaiting its keeper). Here the keeper's first Redis call
swallows the cancel, as that send does, whenever the cancel comes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from waiting import DEADLINE, until

from client.bots import service, stopping
from client.bots.service import BotService, Limits

pytestmark = pytest.mark.timeout(120)


def in_the_keeper() -> bool:
    task = asyncio.current_task()
    return task is not None and getattr(task.get_coro(), "__name__", "") == "_keep_leases"


async def test_a_worker_whose_keeper_swallows_a_cancel_still_stops(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parked = asyncio.Event()
    swallowed: list[bool] = []

    class SwallowingRedis(aioredis.Redis):
        """The keeper's first call waits until it is cancelled, and swallows that cancel."""

        async def execute_command(self, *args: Any, **options: Any) -> Any:
            if in_the_keeper() and not parked.is_set():
                parked.set()
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    swallowed.append(True)  # and on with the call, as that wait_for does
            return await super().execute_command(*args, **options)

    monkeypatch.setattr(service, "connect", SwallowingRedis.from_url)
    stop = asyncio.Event()
    worker = BotService("ws://127.0.0.1:9/", clean_redis, Limits(max_bots=1))
    running = asyncio.create_task(worker.run(stop))
    try:
        await until(parked.is_set, what="the lease keeper in its first Redis call")
    finally:
        stop.set()
        await asyncio.wait({running}, timeout=DEADLINE)
    assert swallowed == [True], "the stop's cancel did not reach the keeper's call"
    assert running.done(), f"the worker did not stop within {DEADLINE} s: {running.get_stack()}"
    running.result()


async def test_a_task_that_swallows_every_cancel_is_given_up_on_with_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The stop's cancels are bounded (`ended`'s give_up_s): such a task is left running, named."""
    done = asyncio.Event()
    cancels: list[bool] = []

    async def stubborn() -> None:
        while not done.is_set():
            try:
                await done.wait()
            except asyncio.CancelledError:
                cancels.append(True)

    task = asyncio.create_task(stubborn(), name="stubborn")
    await asyncio.sleep(0)  # into its wait
    with caplog.at_level("ERROR", logger="solrace.bots"):
        await asyncio.wait_for(stopping.ended([task], 0.02, give_up_s=0.2), DEADLINE)
    assert not task.done() and len(cancels) >= 2, cancels
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [
        "stop: 1 task(s) still running after 0.2 s of cancels; stopping without them: stubborn"
    ]
    done.set()
    await task
