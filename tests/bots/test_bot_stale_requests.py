"""Bot requests no worker would play any more do not pile up in the queue
(server/storage/bots.py "Stale requests").

A rematch's bot is pushed whatever the free slots, and nothing pops `bots:requests` while no
worker runs: each request stayed in the list for good, one more per rematch with a bot. A
push now first drops the expired requests at the queue's old end (the end workers pop), the
requests a worker's claim would refuse; a request a worker may still play stays, and is the
one the next pop takes. Against a real redis-server; time passes by the Redis clock (a
request pushed to expire a moment later is waited for, by condition).
"""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from test_rematch_bot_cap import race_with_bots_finished
from waiting import until

import client
from protocol import messages as m
from server.handlers.bots import WORKER_ALIVE_MS
from server.storage.bots import REQUESTS, BotQueue, BotRequest, now_ms

pytestmark = pytest.mark.timeout(60)


def a_request(player: str, expires: int) -> BotRequest:
    return BotRequest(
        kind="race",
        level="greedy",
        token="tok-" + player,
        player=player,
        game="racing-aces",
        race="r1",
        expires=expires,
    )


async def queued(r: aioredis.Redis) -> list[str]:
    """The players of the queued requests, oldest (popped next) first."""
    return [BotRequest.from_json(x).player for x in reversed(await r.lrange(REQUESTS, 0, -1))]


async def past(r: aioredis.Redis, at: int) -> None:
    """Until the Redis clock is past `at` (ms)."""

    async def later() -> bool:
        return await now_ms(r) > at

    await until(later, interval=0.02, what=f"the Redis clock past {at}")


@pytest.fixture
async def r(clean_redis):
    c = aioredis.Redis.from_url(clean_redis)
    yield c
    await c.aclose()


async def test_pushes_with_no_worker_keep_only_the_requests_a_worker_may_still_play(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    soon = now + 300
    for i in range(5):  # rematch bots pushed while no worker runs
        await q.push(a_request(f"bot-old{i}", soon))
    assert len(await queued(r)) == 5  # none expired yet: none dropped
    await past(r, soon)
    fresh = a_request("bot-new", await now_ms(r) + 60_000)
    await q.push(fresh)
    assert await queued(r) == ["bot-new"]  # it used to be all six, and so on, one more a rematch


async def test_a_request_a_worker_may_still_play_is_never_dropped_and_is_popped_first(r) -> None:
    """Only the old end is trimmed, up to the first request still good: one pushed after it
    and expired waits behind it (the worker's claim, or a later push, drops it)."""
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request("bot-a", now + 300))
    await q.push(a_request("bot-b", now + 60_000))
    await q.push(a_request("bot-c", now + 300))
    await past(r, now + 300)
    await q.push(a_request("bot-d", now + 60_000))
    assert await queued(r) == ["bot-b", "bot-c", "bot-d"]  # bot-a dropped; bot-b shields bot-c
    raw = await q.take(timeout_s=1)
    assert raw is not None and BotRequest.from_json(raw).player == "bot-b"
    epoch, request, why = await q.claim("w1", 1, await now_ms(r), raw)
    assert (epoch, why) == (1, "") and request is not None and request.player == "bot-b"
    assert await q.trim() == 1  # bot-c, now at the old end
    assert await queued(r) == ["bot-d"]


async def test_expired_requests_left_in_the_queue_hold_no_free_slot(r) -> None:
    """A `bot` is queued only if the workers' free slots cover it beside the requests
    waiting: expired ones at the old end are dropped before they are counted."""
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request("bot-old", now + 300))
    await past(r, now + 300)
    now = await now_ms(r)
    await q.heartbeat("w1", now, 1)
    assert await q.reserve([a_request("bot-new", now + 60_000)], now, WORKER_ALIVE_MS)
    assert await queued(r) == ["bot-new"]


async def test_the_trim_drops_malformed_requests_and_leaves_an_empty_queue_gone(r) -> None:
    """The servers' sweep trims with no push (`trim`): a queue of requests all past playing
    is deleted (an empty list is no key)."""
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request("bot-old", now + 300))
    await r.lpush(REQUESTS, b"not json", b'{"kind":"race"}')  # no worker would play these either
    await past(r, now + 300)
    assert await q.trim() == 3
    assert await r.exists(REQUESTS) == 0


async def test_a_rematch_bot_pushed_with_no_worker_drops_the_expired_requests(server) -> None:
    """The server's own push (a rematch's bot, no worker running): the requests of earlier
    rematches that expired unplayed go as it is queued."""
    r = aioredis.Redis.from_url(server.settings.redis)
    queue = BotQueue(r)
    try:
        async with client.connect(server.ws_url, name="ann") as ann:
            old = await race_with_bots_finished(server.ws_url, ann, queue, 1)
            now = await now_ms(r)
            for i in range(3):  # earlier rematches' bots, never played
                await queue.push(a_request(f"bot-stale{i}", now + 300))
            await past(r, now + 300)
            new = await ann.request(m.Rematch(race=old))
            [request] = [BotRequest.from_json(x) for x in await r.lrange(REQUESTS, 0, -1)]
            assert request.race == new.race and request.kind == "race"
    finally:
        await r.aclose()
