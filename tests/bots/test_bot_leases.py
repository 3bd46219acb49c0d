"""The bots' leases in Redis (server/storage/bots.py "Leases"), on a real redis-server:
a worker records the bot it takes, renews its lease, and a lease that ended is re-queued
as a resume request that exactly one worker can claim."""

from __future__ import annotations

import json

import pytest
import redis.asyncio as aioredis
from redis_replies import text

from server.storage.bots import (
    BOTS,
    LEASES,
    REQUESTS,
    SLOTS,
    TAKING,
    BotQueue,
    BotRequest,
    now_ms,
)

pytestmark = pytest.mark.timeout(60)

WITHIN_MS = 5000


def a_request(now: int, player: str = "bot-a", kind: str = "race") -> BotRequest:
    return BotRequest(
        kind=kind,
        level="greedy",
        token="tok",
        player=player,
        game="racing-aces",
        race="r1",
        expires=now + 60_000,
    )


async def record(r: aioredis.Redis, bot: str) -> tuple[int, str, BotRequest] | None:
    raw = await r.hget(BOTS, bot)
    if raw is None:
        return None
    epoch, worker, body = text(raw).split(" ", 2)
    return int(epoch), worker, BotRequest.from_json(body)


async def taken_by(q: BotQueue, worker: str, free: int, now: int) -> tuple[int, BotRequest | None, str]:
    raw = await q.take(timeout_s=1)
    assert raw is not None
    return await q.claim(worker, free, now, raw)


@pytest.fixture
async def r(clean_redis):
    client = aioredis.Redis.from_url(clean_redis)
    yield client
    await client.aclose()


async def test_a_taken_request_is_recorded_under_the_workers_lease(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    req = a_request(now)
    await q.push(req)
    epoch, got, why = await taken_by(q, "w1", 3, now)
    assert (epoch, got, why) == (1, req, "")
    assert await record(r, "bot-a") == (1, "w1", req)
    assert await r.zscore(LEASES, "bot-a") == now + 5000
    assert await r.llen(TAKING) == 0
    assert (await r.hget(SLOTS, "w1")).decode() == f"2 {now}"  # the slot it fills, counted at once
    assert await q.renew("w1", [("bot-a", 1)], now + 1000) == [1]
    assert await r.zscore(LEASES, "bot-a") == now + 6000
    assert await q.renew("w2", [("bot-a", 1)], now + 1000) == [0]  # not its lease
    assert await q.renew("w1", [("bot-a", 2), ("bot-b", 1)], now + 1000) == [0, -1]


async def test_an_ended_lease_is_resumed_by_one_worker_and_the_old_one_loses_it(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    req = a_request(now)
    await q.push(req)
    await taken_by(q, "w1", 2, now)
    assert await q.rescue(now + 4999) == 0  # still held
    fresh = a_request(now, player="bot-b")
    await q.push(fresh)  # waiting in the queue
    assert await q.rescue(now + 5000) == 1
    assert await record(r, "bot-a") == (2, "-", req)
    # The resume request is next, before the older fresh one, and counts as waiting.
    resume = BotRequest.from_json(await r.lindex(REQUESTS, -1))
    assert (resume.kind, resume.player, resume.epoch, resume.expires) == ("resume", "bot-a", 2, now + 15_000)
    assert resume.token == ""  # the token stays in the record
    await q.heartbeat("w2", now + 5000, 2)
    assert await q.free_slots(now + 5000, WITHIN_MS) == 1  # w1's 1 and w2's 2, less those two
    assert await q.rescue(now + 5001) == 0  # queued: not again before its hold ends

    raw = await r.lindex(REQUESTS, -1)
    epoch, got, _ = await taken_by(q, "w2", 2, now + 5100)
    assert (epoch, got) == (2, req)  # the recorded request, token and race, to play again
    assert await record(r, "bot-a") == (2, "w2", req)
    assert (await r.hget(SLOTS, "w2")).decode() == f"1 {now + 5100}"
    # The same request again (a copy) or the old holder renewing: refused.
    assert await q.claim("w3", 2, now + 5100, raw) == (0, None, "taken")
    assert await q.renew("w1", [("bot-a", 1)], now + 5200) == [0]
    assert await q.renew("w2", [("bot-a", 2)], now + 5200) == [1]
    assert await q.settle("w1", [("bot-a", 1)], drop=True) == 0  # not its own: kept
    assert await record(r, "bot-a") == (2, "w2", req)


async def test_an_unclaimed_resume_request_is_replaced_and_the_old_one_refused(r) -> None:
    """A stalled worker swallowed the resume request: once its hold is over, another one
    with the next epoch; the swallowed one, taken at last, claims nothing."""
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request(now))
    await taken_by(q, "w1", 2, now)
    await q.rescue(now + 5000)
    swallowed = await q.take(timeout_s=1)
    assert swallowed is not None
    assert await q.rescue(now + 15_000) == 1
    rescued = await record(r, "bot-a")
    assert rescued is not None and rescued[:2] == (3, "-")
    assert await q.claim("w1", 2, now + 15_000, swallowed) == (0, None, "taken")
    assert (await r.hget(SLOTS, "w1")).decode() == f"2 {now + 15_000}"  # no slot used
    epoch, got, _ = await taken_by(q, "w2", 2, now + 15_002)
    assert epoch == 3 and got is not None


async def test_a_bot_through_with_its_race_is_dropped_and_a_late_resume_starts_nothing(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request(now))
    await q.push(a_request(now, player="bot-b"))
    await taken_by(q, "w1", 2, now)
    await taken_by(q, "w1", 1, now)
    await q.rescue(now + 5000)  # both re-queued (the worker stalled)...
    assert await q.settle("w1", [("bot-a", 1)], drop=True) == 0  # ...so not its own to drop
    epoch, got, _ = await taken_by(q, "w1", 2, now + 5001)
    assert got is not None
    assert await q.settle("w1", [(got.player, epoch)], drop=True) == 1
    assert await record(r, got.player) is None and await r.zscore(LEASES, got.player) is None
    # A resume request for a bot no longer recorded claims nothing, and uses no slot.
    gone = BotRequest(
        kind="resume", level="", token="", player=got.player, game="", epoch=epoch, expires=now + 9000
    )
    await r.rpush(REQUESTS, gone.to_json())
    assert await taken_by(q, "w1", 2, now + 5002) == (0, None, "over")
    assert (await r.hget(SLOTS, "w1")).decode() == f"2 {now + 5002}"


async def test_a_released_lease_is_resumed_at_once_and_an_expired_request_is_dropped(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request(now))
    await taken_by(q, "w1", 1, now)
    assert await q.settle("w1", [("bot-a", 1)], drop=False) == 1  # the worker stops
    assert await q.rescue(now + 1) == 1
    assert await taken_by(q, "w2", 1, now + 10_002) == (0, None, "expired")  # held 10 s
    late = a_request(now - 70_000, player="bot-c")
    await q.push(late)
    assert await taken_by(q, "w2", 1, now) == (0, None, "expired")
    assert await record(r, "bot-c") is None


async def test_a_lost_record_is_written_again_by_its_holder_only(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    req = a_request(now)
    assert await q.put("w1", 4, req, now)  # missing (Redis lost it): written
    assert await record(r, "bot-a") == (4, "w1", req)
    seated = BotRequest(**{**json.loads(req.to_json()), "race": "r2"})
    assert await q.put("w1", 4, seated, now + 10)  # its own: the race it found
    kept = await record(r, "bot-a")
    assert kept is not None and kept[2].race == "r2"
    assert not await q.put("w2", 4, req, now)
    assert not await q.put("w1", 3, req, now)
    assert await r.zscore(LEASES, "bot-a") == now + 10 + 5000
