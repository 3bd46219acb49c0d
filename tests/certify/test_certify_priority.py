"""A request a player waits for (analysis, a hint) goes before the background refills."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from waiting import DEADLINE, until

from server.certify.service import Certifier
from server.config import Settings


async def test_no_refill_batch_is_queued_while_a_player_waits():
    c = Certifier(redis=None, settings=Settings(solver_request_workers=0))
    executor = ThreadPoolExecutor(1)  # stands in for the worker process: same queueing
    c.executor = executor
    batches: list[str] = []

    async def no_daily() -> bool:
        return False

    async def one_batch() -> bool:
        batches.append("refill")
        await asyncio.sleep(0)
        return False  # nothing short: the loop then waits for a wake-up or a second

    c.prepare_daily_once = no_daily  # type: ignore[method-assign]
    c.refill_once = one_batch  # type: ignore[method-assign]
    release = threading.Event()
    asked = asyncio.ensure_future(c.ask(release.wait, 60))
    await until(lambda: not c.nobody_asking.is_set(), what="the request is in")
    loop = asyncio.ensure_future(c.refill_loop())
    try:
        c.wake.set()
        await asyncio.sleep(0.2)  # not a wait for a condition: nothing may happen meanwhile
        assert batches == []
        release.set()
        assert await asked is True
        assert c.nobody_asking.is_set()
        await until(lambda: batches, what="the refill goes on once nobody waits")
    finally:
        c.stopping.set()
        loop.cancel()
        executor.shutdown(wait=False)


async def test_a_players_request_does_not_wait_for_a_background_solve(r):
    """With a request worker (the default), a hint or an analysis runs beside a background
    batch, at the server's own priority, instead of queueing behind it at nice +10."""
    settings = Settings(certify_workers=1, solver_request_workers=1, certified_games="")
    c = Certifier(r, settings)
    await c.start()
    try:
        # A background "batch" that would outlast the test, holding the one certify worker.
        batch = asyncio.ensure_future(c.run(time.sleep, 600))
        await until(
            lambda: isinstance(c.executor, ProcessPoolExecutor) and c.executor._pending_work_items,
            what="batch queued",
        )
        niceness = await asyncio.wait_for(c.ask(os.nice, 0), DEADLINE)
        assert niceness == os.nice(0)  # the server's own priority, not certify_nice's +10
        assert not batch.done()
    finally:
        await c.stop()
