"""The leftovers sweep (server/handlers/leftovers.py): entries of process-wide indexes that
nothing else would ever drop go, at each process's start and every LEFTOVERS_SWEEP_S.

- The public index: a process that died between dropping an expired lobby's timer and its
  listing (handlers/clock.py `_tick`), or whose unlisting write failed, left a member that no
  timer ticks and that a `races` read drops only while it is among the newest it reads: it
  stayed for good. Planted here as that crash leaves it (the race's keys gone, no timer).
- The bot request queue: requests pushed while no worker runs, expired, and no push since.

Against a real server and redis-server; each sweep is awaited by condition (the one at the
start), or called (`sweep`).
"""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from local_cluster import LocalCluster
from redis_replies import text
from waiting import until
from wsclient import player

from server.handlers.leftovers import Leftovers
from server.storage import keys as K
from server.storage.bots import REQUESTS, BotQueue, BotRequest, now_ms

pytestmark = pytest.mark.timeout(60)

GONE = ["r" + f"{i:016x}" for i in range(1, 4)]  # race ids whose records expired


async def listed(r: Any) -> set[str]:
    return {text(x) for x in await r.zrange(K.PUBLIC, 0, -1)}


async def test_a_process_start_unlists_the_gone_races_and_drops_the_stale_bot_requests(
    make_server, clean_redis
) -> None:
    r = aioredis.Redis.from_url(clean_redis)
    try:
        # What the crash left: listed (the oldest: no `races` read reaches them once newer
        # races fill its window), their keys expired, no timer.
        await r.zadd(K.PUBLIC, dict.fromkeys(GONE, 1))
        now = await now_ms(r)
        for i in range(3):  # a rematch's bots pushed while no worker ran, never played
            request = BotRequest(
                "race", "greedy", f"t{i}", f"bot-{i}", "racing-aces", race="r1", expires=now + 200
            )
            await BotQueue(r).push(request)

        async def expired() -> bool:
            return await now_ms(r) > now + 200

        await until(expired, interval=0.02, what="the requests expired")
        await make_server()

        async def swept() -> bool:
            return not await listed(r) and not await r.exists(REQUESTS)

        await until(swept, what="the start's sweep: gone races unlisted, expired requests dropped")
    finally:
        await r.aclose()


async def test_the_sweep_keeps_every_live_race_listed_and_every_request_a_worker_may_play(
    server, clean_redis
) -> None:
    r = aioredis.Redis.from_url(clean_redis)
    sweep: Leftovers = server.service.leftovers
    try:
        ada = await player(server.ws_url, "ada")
        live = (await ada.request("create", game="fours-up", seats=2))["race"]
        assert await listed(r) == {live}
        await r.zadd(K.PUBLIC, dict.fromkeys(GONE, 1))
        now = await now_ms(r)
        waiting = BotRequest("race", "greedy", "t", "bot-w", "racing-aces", race=live, expires=now + 60_000)
        await BotQueue(r).push(waiting)
        assert await sweep.sweep() == (len(GONE), 0)
        assert await listed(r) == {live}
        assert await r.lrange(REQUESTS, 0, -1) == [waiting.to_json().encode()]
        assert await sweep.sweep() == (0, 0)
        await ada.close()
    finally:
        await r.aclose()


async def test_the_sweep_on_a_cluster_looks_at_each_race_on_its_own_node(
    cluster: LocalCluster, cluster_url: str, make_server
) -> None:
    """The races listed live in slots of every node: each is looked at on its own."""
    app = await make_server(redis=cluster_url)
    r = app.store.redis
    ada = await player(app.ws_url, "ada")
    live: list[str] = []
    while len({cluster.node_of(K.race_key(rid)) for rid in live}) < 2:
        live.append((await ada.request("create", game="fours-up", seats=2))["race"])
    gone = list(GONE)
    await r.zadd(K.PUBLIC, dict.fromkeys(gone, 1))
    assert len({cluster.node_of(K.race_key(rid)) for rid in live + gone}) > 1
    assert await app.service.leftovers.sweep() == (len(gone), 0)
    assert await listed(r) == set(live)
    await ada.close()
