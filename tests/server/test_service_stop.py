"""A service's stop ends its background tasks even when a cancel is lost (server/tasks.py).

A stop's cancel that lands while redis-py sends a command is dropped on Python 3.11
(`asyncio.wait_for` in redis/asyncio/connection.py `send_packed_command` returns the inner
result to a caller cancelled after that result came): the task reads the reply and goes on.
The stop used to cancel each task once and then wait for it without bound.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE

from server import tasks
from server.config import Settings
from server.metrics import Metrics
from server.service import Service
from server.storage import Store

#: Far more than the stop needs (a grace of 0.1 s here), far less than the task's sleep.
STOP_WITHIN_S = 10.0


async def started_service(settings: Settings) -> Service:
    """A service on a started store; its own loops (Service.start) not running: the probe
    task is the only one the stop meets."""
    store = Store(settings.redis, settings)
    await store.start()
    return Service(settings, store, Metrics())


async def test_a_stop_ends_a_task_whose_cancel_a_redis_call_dropped(
    fast_settings: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tasks, "TASK_STOP_GRACE_S", 0.1)
    caplog.set_level(logging.WARNING, logger="solrace.service")
    dropped: list[int] = []  # the loop iterations after which the stop's cancel was lost
    for steps in range(8):
        svc = await started_service(fast_settings)
        try:
            await svc.store.redis.ping()  # a connected idle connection: the next command is sent at once

            async def sweep_then_sleep(steps: int = steps, svc: Service = svc) -> None:
                await svc.store.redis.get("probe")  # where the stop's cancel lands, for some `steps`
                if svc.stopping:  # the stop had cancelled this task, and yet the reply came back
                    dropped.append(steps)
                await asyncio.sleep(3600)  # the loop's next sleep: the stop used to wait it out

            svc.spawn(sweep_then_sleep())
            for _ in range(steps):
                await asyncio.sleep(0)
            caplog.clear()
            stop = asyncio.create_task(svc.stop())
            await asyncio.wait({stop}, timeout=STOP_WITHIN_S)
            if not stop.done():
                for task in list(svc.tasks):  # let the stop end before the store closes
                    task.cancel()
                await stop
                pytest.fail(f"the stop begun {steps} loop iterations in still waited after {STOP_WITHIN_S} s")
            assert not svc.tasks
            if steps in dropped:  # cancelled again after the grace, and named in the log
                assert "sweep_then_sleep" in caplog.text and "cancelling again" in caplog.text
        finally:
            await svc.store.close()
    if sys.version_info < (3, 12):  # 3.12's wait_for raises: nothing to drop the cancel there
        assert dropped, "no stop's cancel landed while a command was being sent"


async def test_a_task_spawned_once_the_stop_began_never_runs(fast_settings: Settings) -> None:
    """The stop waits for the tasks it finds; one spawned after (a failure's recheck of Redis,
    handlers/seating.py, as the server stops) would outlive the service: it is cancelled at once."""
    svc = await started_service(fast_settings)
    ran = asyncio.Event()

    async def late() -> None:
        ran.set()

    try:
        await svc.stop()
        task = svc.spawn(late())
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not ran.is_set()
    finally:
        await svc.store.close()


async def test_a_task_that_drops_every_cancel_is_left_behind_and_named(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tasks, "TASK_STOP_GRACE_S", 0.05)
    caplog.set_level(logging.WARNING, logger="solrace.service")
    cancels = 0
    release = asyncio.Event()

    async def stubborn() -> None:
        nonlocal cancels
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                cancels += 1

    async def obedient() -> None:
        await asyncio.sleep(3600)

    a = asyncio.create_task(stubborn(), name="stubborn")
    b = asyncio.create_task(obedient(), name="obedient")
    await asyncio.sleep(0)
    async with asyncio.timeout(DEADLINE):
        left = await tasks.cancel_and_wait([a, b])
    assert left == {a} and b.cancelled() and cancels == tasks.TASK_STOP_CANCELS
    assert "stopping without them: stubborn" in caplog.text
    release.set()
    await a


async def test_stop_task_lets_a_cancel_of_its_caller_through() -> None:
    # The closes of the bus, the admission counts and the solver service awaited their task
    # under `except (CancelledError, Exception): pass`, which also swallowed a cancel aimed at
    # the close itself (a stop given up on, say): the close then went on as if not cancelled.
    release = asyncio.Event()

    async def slow_to_clean_up() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await release.wait()  # a clean-up that takes its time
            raise

    task = asyncio.create_task(slow_to_clean_up())
    await asyncio.sleep(0)
    closing = asyncio.create_task(tasks.stop_task(task))
    await asyncio.sleep(0)
    closing.cancel()
    async with asyncio.timeout(DEADLINE):
        with pytest.raises(asyncio.CancelledError):
            await closing
    release.set()
    async with asyncio.timeout(DEADLINE):
        await tasks.stop_task(task)  # and once it ends, its outcome is retrieved, not raised
    assert task.cancelled()


async def test_stop_task_retrieves_a_failure() -> None:
    async def fails() -> None:
        raise ValueError("moot at a stop")

    reported: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        task: asyncio.Task[None] | None = asyncio.create_task(fails())
        await asyncio.sleep(0)
        await tasks.stop_task(task)  # no raise
        assert task is not None and task.done() and not task.cancelled()
        # A task whose exception nobody retrieved says so when it is collected; drop ours.
        del task
        gc.collect()
        assert not [c for c in reported if "never retrieved" in str(c.get("message"))], reported
    finally:
        loop.set_exception_handler(None)
    await tasks.stop_task(None)


@pytest.mark.parametrize("package", ["server", "client", "bench"])
def test_our_code_bounds_its_waits_with_asyncio_timeout(package: str) -> None:
    # Python 3.11's wait_for can lose a cancel (module docstring); asyncio.timeout raises it.
    # The clients and the benchmarks too: a bot worker's or the terminal client's stop must not be dropped either.
    root = Path(__file__).resolve().parents[2] / package
    found = [
        f"{path.relative_to(root.parent)}:{n}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "asyncio.wait_for(" in line and not line.lstrip().startswith(("#", "`"))
    ]
    assert not found, found
