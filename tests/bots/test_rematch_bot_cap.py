"""A rematch's bots count against the per-player bot cap (server/handlers/bots.py).

A rematch replaces every bot of the old race by a new one; those replacements used to be
queued whatever the asker had waiting and counted nowhere: a guest could finish a race with
many bots (a quick-match's fallback bots, say), rematch, and so on, each rematch lobby holding
worker slots. They now count against the asker (the rematch's host) like bots they asked for
with `bot`: past MAX_WAITING_BOTS_PER_PLAYER the other old bots are not replaced.

The server runs in this process; the old race's bots are played by this test with their
minted tokens (no bot worker runs), and a worker's free slots are reported by hand.
"""

from __future__ import annotations

import contextlib

import pytest
import redis.asyncio as aioredis
from redis_replies import text

import client
from protocol import messages as m
from server.handlers.bots import MAX_WAITING_BOTS_PER_PLAYER, asked_key
from server.storage.bots import REQUESTS, BotQueue, BotRequest, now_ms

pytestmark = pytest.mark.timeout(60)

GAME = "fours-up"


async def race_with_bots_finished(url: str, eve: client.Client, queue: BotQueue, bots: int) -> str:
    """A private race of `eve` and `bots` bots (minted as the server mints them, played here),
    started and finished: its id."""
    snap = await eve.create(GAME, seats=bots + 1, time_limit_s=60, private=True)
    async with contextlib.AsyncExitStack() as stack:
        players = [eve]
        for _ in range(bots):
            _pid, token = await queue.new_bot("greedy", "Greedy bot", 3600)
            bot = await stack.enter_async_context(client.connect(url, token=token))
            assert bot.player is not None and bot.player.startswith("bot-")
            await bot.join(snap.race, invite=snap.invite)
            await bot.ready(snap.race)
            players.append(bot)
        await eve.ready(snap.race)
        for c in players:
            await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=20)
            await c.finish(snap.race)
        await eve.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=20)
    return snap.race


async def test_a_rematch_replaces_at_most_the_hosts_bot_cap(server) -> None:
    assert MAX_WAITING_BOTS_PER_PLAYER == 2  # the old race has one bot more
    r = aioredis.Redis.from_url(server.settings.redis)
    queue = BotQueue(r)
    try:
        async with client.connect(server.ws_url, name="eve") as eve:
            old = await race_with_bots_finished(server.ws_url, eve, queue, MAX_WAITING_BOTS_PER_PLAYER + 1)
            new = await eve.request(m.Rematch(race=old))
            assert new.race != old and new.host == eve.player
            # As many replacements as the cap, counted as eve's; the third old bot's seat stays free.
            queued = [BotRequest.from_json(x) for x in await r.lrange(REQUESTS, 0, -1)]
            assert len(queued) == MAX_WAITING_BOTS_PER_PLAYER, queued
            assert {q.race for q in queued} == {new.race}
            assert eve.player is not None
            asked = {text(x) for x in await r.zrange(asked_key(eve.player), 0, -1)}
            assert asked == {f"{new.race} {q.player}" for q in queued}
            # So eve may ask for no more bot, though a worker has free slots.
            await queue.heartbeat("w1", await now_ms(r), 20)
            with pytest.raises(client.ServerError) as e:
                await eve.request(m.Bot(race=new.race))
            assert e.value.code == "no-bots" and "waiting for a race to start" in e.value.message
            # The rematch asked again (the same lobby) queues nothing more.
            assert (await eve.request(m.Rematch(race=old))).race == new.race
            assert await r.llen(REQUESTS) == MAX_WAITING_BOTS_PER_PLAYER
    finally:
        await r.aclose()


async def test_a_rematch_within_the_cap_replaces_every_bot(server) -> None:
    r = aioredis.Redis.from_url(server.settings.redis)
    queue = BotQueue(r)
    try:
        async with client.connect(server.ws_url, name="ann") as ann:
            old = await race_with_bots_finished(server.ws_url, ann, queue, 1)
            new = await ann.request(m.Rematch(race=old))
            queued = [BotRequest.from_json(x) for x in await r.lrange(REQUESTS, 0, -1)]
            assert [(q.kind, q.level, q.race, q.game) for q in queued] == [("race", "greedy", new.race, GAME)]
            assert ann.player is not None
            assert await r.zcard(asked_key(ann.player)) == 1
            # One place left under the cap: a `bot` of ann's is still taken.
            await queue.heartbeat("w1", await now_ms(r), 20)
            assert isinstance(await ann.request(m.Bot(race=new.race)), m.Ok)
    finally:
        await r.aclose()
