"""A bot worker's report of its free slots stays counted while its Redis round trips are slow
(client/bots/service.py, server/storage/bots.py "Free slots").

The server counts a worker's free slots from its last report within WORKER_ALIVE_MS (5 s); a
worker reports about every second. It used to report before each pop, one after the other:
the Redis clock, its slots, its heartbeat, then the pop's wait of a second. On a loaded
machine (the worker, the server and a terminal app starved in one process) the reports came
5.7 s apart, and the server answered a `bot` with `no-bots` while the worker waited with a
free slot. Here each of the worker's Redis calls is delayed by ROUND_TRIP_S, as that machine
did: the old order then reported every ~6 s; the report now runs beside the pop.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from waiting import DEADLINE, until

from client.bots import service
from client.bots.service import BotService, Limits
from server.handlers.bots import WORKER_ALIVE_MS
from server.storage.bots import SLOTS, BotQueue, now_ms

pytestmark = pytest.mark.timeout(120)

ROUND_TRIP_S = 1.25  # each Redis call of the worker: four in a row made ~6 s, past WORKER_ALIVE_MS
REPORTS = 4  # reports watched after the first one (the old order failed before its second)


class SlowRedis(aioredis.Redis):
    """A client whose every call waits ROUND_TRIP_S before it is sent: a starved round trip."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        await asyncio.sleep(ROUND_TRIP_S)
        return await super().execute_command(*args, **options)


async def test_a_worker_with_slow_redis_round_trips_keeps_its_free_slot_counted(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "connect", SlowRedis.from_url)
    stop = asyncio.Event()
    worker = BotService("ws://127.0.0.1:9/", clean_redis, Limits(max_bots=1))
    running = asyncio.create_task(worker.run(stop))
    r = aioredis.Redis.from_url(clean_redis)
    queue = BotQueue(r)
    seen: set[bytes | str] = set()

    async def reported() -> bytes | str | None:
        return await r.hget(SLOTS, worker.worker)

    async def counted_through_reports() -> bool:
        """Each look: its free slot is counted as the server counts it (else fail, with how old
        its last report was); true once REPORTS more reports were seen."""
        now = await now_ms(r)
        report = await r.hget(SLOTS, worker.worker)
        assert report is not None, "the worker's report is gone"
        at = int(report.split()[1])
        assert await queue.free_slots(now, WORKER_ALIVE_MS) == 1, (
            f"the worker's free slot not counted: its last report is {now - at} ms old "
            f"(counted for {WORKER_ALIVE_MS} ms), after {len(seen)} reports"
        )
        seen.add(report)
        return len(seen) > REPORTS

    try:
        first = await until(reported, interval=0.05, what="the worker's first report")
        seen.add(first)
        await until(counted_through_reports, interval=0.05, what=f"{REPORTS} more reports")
    finally:
        stop.set()
        await r.aclose()
        await asyncio.wait({running}, timeout=DEADLINE)
    assert running.done(), f"the worker did not stop within {DEADLINE} s"
    running.result()
