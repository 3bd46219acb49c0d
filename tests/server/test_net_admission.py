"""The periodic renewal of the connection counts (server/net/admission.py), against a real Redis."""

from __future__ import annotations

import time
from typing import Any

import redis.asyncio as aioredis
from waiting import DEADLINE, until

from server.config import Settings
from server.net import admission
from server.net.admission import Admission
from server.storage.health import Health
from server.storage.resp import Pipe
from server.storage.sessions import Sessions, conns_key

NAMES = 1_200  # more than two renewal batches in each tenth of the period


class CountingSessions(Sessions):
    """The real sessions store, noting which names each batch wrote, and when."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.batches: list[tuple[float, set[str]]] = []

    async def conn_counts(self, counts: dict[str, int]) -> dict[str, int]:
        self.batches.append((time.monotonic(), set(counts)))
        return await super().conn_counts(counts)


async def test_the_renewal_is_spread_over_the_period_in_small_batches(clean_redis: str) -> None:
    r = aioredis.Redis.from_url(clean_redis)
    pipe = Pipe(clean_redis)
    await pipe.connect()
    sessions = CountingSessions(r, pipe, 3600, 3600, 0)
    sessions.conn_ttl_ms = 6_000  # a renewal period of 2 s, a slice every 0.2 s
    adm = Admission(Settings(redis=clean_redis), sessions, Health(r, cluster=False))
    names = [f"10.0.{i // 256}.{i % 256}" for i in range(NAMES)]
    adm.per_addr = dict.fromkeys(names, 1)
    adm.start()
    try:

        async def all_renewed() -> bool:
            return len(set().union(*(b for _t, b in sessions.batches))) == NAMES

        await until(all_renewed, timeout=DEADLINE, what="every count renewed")
    finally:
        adm.stop()
    # Each name's count is in Redis, under this process, and lives on.
    for name in names[:: NAMES // 20]:
        assert await r.hget(conns_key(name), sessions.proc) == b"1"
        assert await r.pttl(conns_key(name)) > 0
    # Never all at once: no batch over RENEW_BATCH names, and the names went out slice by
    # slice (all at once would take 3 batches of 500; slices of 120 take about 10, fewer only
    # if the loop stalled for several slices).
    assert max(len(b) for _t, b in sessions.batches) <= admission.RENEW_BATCH
    assert len(sessions.batches) >= admission.RENEW_SLICES // 2, [len(b) for _t, b in sessions.batches]
    pipe.close()
    await r.aclose()
