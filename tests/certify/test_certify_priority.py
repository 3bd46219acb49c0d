"""A request a player waits for (analysis, a hint) goes before the background refills."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from waiting import until

from server.certify.service import Certifier
from server.config import Settings


async def test_no_refill_batch_is_queued_while_a_player_waits():
    c = Certifier(redis=None, settings=Settings())
    c.executor = ThreadPoolExecutor(1)  # stands in for the worker process: same queueing
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
        c.executor.shutdown(wait=False)
