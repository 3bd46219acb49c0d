"""A new bot request popped by a worker that stalls before claiming it is played by another
(server/storage/bots.py "Taken back").

A worker spends most of its idle time in its pop (BLMOVE, 1 s) waiting in Redis; one that
stalls there (SIGSTOP) still gets the next request moved to `taking`, and would never
claim it. Every live worker's sweep puts such a request back on the queue after
TAKE_HOLD_MS; the stalled worker, woken, finds it taken back and plays nothing.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import redis
import redis.asyncio as aioredis
from test_bot_failover import Worker, free_slots, owner_of
from test_bot_worker import is_bot
from waiting import until

import client
from protocol import messages as m
from server.storage.bots import REQUESTS, SEEN, TAKE_HOLD_MS, TAKING, BotQueue, BotRequest, now_ms

pytestmark = pytest.mark.timeout(150)

ATTEMPTS = 20  # stops that must catch the worker in its pop (each fails only by a narrow margin)


def a_request(now: int, player: str = "bot-a") -> BotRequest:
    return BotRequest(
        kind="race",
        level="greedy",
        token="tok",
        player=player,
        game="racing-aces",
        race="r1",
        expires=now + 60_000,
    )


@pytest.fixture
async def r(clean_redis):
    c = aioredis.Redis.from_url(clean_redis)
    yield c
    await c.aclose()


async def test_a_popped_request_left_unclaimed_goes_back_and_its_late_claim_is_refused(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request(now))
    raw = await q.take(timeout_s=1)  # the stalled worker's pop
    assert raw is not None
    assert await q.retake(now) == 0  # first seen now
    assert await q.retake(now + TAKE_HOLD_MS - 1) == 0
    assert await r.llen(TAKING) == 1 and await r.llen(REQUESTS) == 0
    assert await q.retake(now + TAKE_HOLD_MS) == 1
    assert await r.llen(TAKING) == 0 and await r.lrange(REQUESTS, 0, -1) == [raw]
    # The stalled worker, woken, is refused: the request waits in the queue for a live worker.
    assert await q.claim("w1", 2, now + TAKE_HOLD_MS, raw) == (0, None, "taken back")
    assert await r.lrange(REQUESTS, 0, -1) == [raw]
    again = await q.take(timeout_s=1)
    assert again == raw
    assert await q.claim("w2", 2, now + TAKE_HOLD_MS, again) == (1, a_request(now), "")
    assert (await r.hget("{bots:requests}:bots", "bot-a") or b"").startswith(b"1 w2 ")
    assert await q.claim("w1", 2, now + TAKE_HOLD_MS, raw) == (0, None, "taken")
    # Once the bot is through with its race (its record dropped), a late claim starts nothing again.
    assert await q.settle("w2", [("bot-a", 1)], drop=True) == 1
    assert await q.claim("w1", 2, now + TAKE_HOLD_MS, raw) == (0, None, "taken back")
    assert await q.retake(now + TAKE_HOLD_MS) == 0
    assert await r.hlen(SEEN) == 0  # the notes go with their requests


async def test_a_claimed_request_is_never_taken_back_and_an_expired_one_is_dropped(r) -> None:
    q = BotQueue(r)
    now = await now_ms(r)
    await q.push(a_request(now))
    raw = await q.take(timeout_s=1)
    assert raw is not None
    assert await q.retake(now) == 0
    assert (await q.claim("w1", 2, now + 10, raw))[0] == 1  # claimed in time
    assert await q.retake(now + TAKE_HOLD_MS) == 0
    assert await r.llen(REQUESTS) == 0 and await r.hlen(SEEN) == 0
    # A request left in `taking` past its expiry is dropped, not re-queued.
    await q.push(a_request(now, "bot-b"))
    assert await q.take(timeout_s=1) is not None
    assert await q.retake(now + 60_001) == 0
    assert await r.llen(TAKING) == 0 and await r.llen(REQUESTS) == 0


async def asked_once(c: client.Client, race: str) -> bool:
    """A random bot asked for `race` once: False if no worker was alive for it."""
    try:
        await c.request(m.Bot(race=race, level="random"))
    except client.ServerError as e:
        if e.code != "no-bots":
            raise
        return False
    return True


def slots_at(r: redis.Redis, worker: str) -> int:
    """When the worker last reported its free slots (ms, Redis clock)."""
    raw = r.hget("{bots:requests}:slots", worker)
    return 0 if raw is None else int(raw.split()[1])


def waiting_in_its_pop(r: redis.Redis) -> bool:
    """Is a worker's pop blocked in Redis (the only worker: the one to stall)?"""
    return any(c.get("cmd") == "blmove" and "b" in c.get("flags", "") for c in r.client_list())


async def test_a_new_request_a_stalled_worker_popped_is_played_by_another(serve_process, redis_url) -> None:
    url, _proc = serve_process("--bot-workers", "0")
    r = redis.Redis.from_url(redis_url)
    stalled = Worker(url, redis_url)
    workers = [stalled]
    c = client.connect(url, name="eve")
    await c.open()
    try:
        for _ in range(ATTEMPTS):
            race = (await c.create("racing-aces", seats=2, time_limit_s=300, private=True)).race
            await until(lambda: waiting_in_its_pop(r), what="the worker waiting in its pop")
            os.kill(stalled.proc.pid, signal.SIGSTOP)
            # Stopped in its pop: the next request goes to it. One ask, not ask_bot's retries:
            # on a loaded machine the stopped worker's last report of free slots can age past
            # WORKER_ALIVE_MS before the ask reaches the server, and no later ask would find
            # it alive (seen once: 30 s of "no-bots"); that attempt is missed, like a pop
            # that ended first.
            if waiting_in_its_pop(r) and await asked_once(c, race):
                if r.llen(TAKING) == 1:
                    break
            # Its pop ended just before: let nobody play the request (if any), and try again.
            r.delete(REQUESTS)
            os.kill(stalled.proc.pid, signal.SIGCONT)
        else:
            raise AssertionError(f"the worker was never stopped in its pop in {ATTEMPTS} attempts")
        request = BotRequest.from_json(r.lindex(TAKING, 0) or b"")
        assert request.kind == "race" and request.race == race

        other = Worker(url, redis_url)  # the only live worker: its sweep takes the request back
        workers.append(other)
        seated = await until(
            lambda: owner_of(r, request.player) == other.id,
            timeout=45,  # well within the request's minute: without the sweep it never comes
            interval=0.2,
            what="the other worker playing the bot",
        )
        assert seated

        def bot_ready() -> bool:
            snap = c.races_seen.get(race)
            return snap is not None and any(is_bot(p.player) and p.ready for p in snap.players)

        await until(bot_ready, what="the bot seated and ready")

        # The stalled worker wakes: its pop's answer (the request) is refused at its claim
        # ("taken back"), or lost with its connection if its read timed out meanwhile;
        # either way it plays nothing, and is back asking for work.
        stopped_at = slots_at(r, stalled.id)
        os.kill(stalled.proc.pid, signal.SIGCONT)
        try:
            await until(lambda: slots_at(r, stalled.id) > stopped_at, what="the woken worker asking again")
        except TimeoutError as e:
            raise AssertionError("".join(stalled.lines)[-4000:]) from e
        assert free_slots(r, stalled.id) == 2
        assert owner_of(r, request.player) == other.id
        assert not [line for line in stalled.lines if f"bot {request.player}" in line], stalled.lines
        assert r.llen(TAKING) == 0  # nothing left half taken
    finally:
        await c.close()
        for w in workers:
            await asyncio.to_thread(w.stop)
        r.close()
