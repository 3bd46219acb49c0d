"""A `bot` whose push was lost on its way back (server/handlers/bots.py `_asked`): Redis ran the
reservation script, so the bot was queued for a worker, and then the reply was lost. That bot
counts against the player's MAX_WAITING_BOTS_PER_PLAYER like any: it used to be noted only once
the push had answered, so a player whose pushes failed so got more bots queued than the cap.
And the player is answered `ok` (`Bots._were_pushed` finds the request queued): it used to be
`internal`, and the bot came all the same. A push that failed before it ran still answers
`internal`; found not queued, its bot identity is deleted and no longer counts (it waited out
its TTL, and counted for ASKED_GRACE_MS). The failure is injected into the real server's bot
queue; the rest is real."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from injected import Blip, fail_first
from redis_replies import text
from test_abuse_caps import GAME, free_slots, said
from wsclient import player

from server.core.gap_fill import ATTEMPTS
from server.handlers.bots import MAX_WAITING_BOTS_PER_PLAYER, asked_key
from server.storage.bots import BOTS, REQUESTS, TAKING, BotQueue, BotRequest, now_ms
from server.storage.keys import profile_key, session_key


def minted(app: Any) -> list[tuple[str, str]]:
    """The bot identities (player id, token) the server mints from now on."""
    queue = app.service.bots.queue
    real = queue.new_bot
    made: list[tuple[str, str]] = []

    async def new_bot(*args: Any) -> tuple[str, str]:
        made.append(await real(*args))
        return made[-1]

    queue.new_bot = new_bot
    return made


async def identities_left(r: Any, made: list[tuple[str, str]]) -> int:
    return int(await r.exists(*(k for pid, token in made for k in (profile_key(pid), session_key(token)))))


@asynccontextmanager
async def eve_with_a_private_lobby(app: Any) -> AsyncIterator[tuple[Any, Any, str]]:
    """(Redis, eve connected, her private lobby of 8 seats), with workers' slots free for bots."""
    r = aioredis.Redis.from_url(app.settings.redis)
    eve = await player(app.ws_url, "eve")
    try:
        lobby = (await eve.request("create", game=GAME, seats=8, private=True))["race"]
        await free_slots(r, 20)
        yield r, eve, lobby
    finally:
        await eve.close()
        await r.aclose()


def reserve_reply_lost_once(app: Any) -> list[list[BotRequest]]:
    """The bot queue's first `reserve` runs in Redis, then fails as if its reply were lost.
    Returns the requests of that lost reply."""
    queue = app.service.bots.queue
    real = queue.reserve
    lost: list[list[BotRequest]] = []

    async def flaky(requests: list[BotRequest], *args: Any) -> bool:
        pushed = await real(requests, *args)
        if not lost:
            assert pushed
            lost.append(requests)
            raise Blip("redis blip: the reservation's reply lost")
        return pushed

    queue.reserve = flaky
    return lost


async def test_a_bot_whose_reservation_reply_was_lost_still_counts(make_server):
    assert MAX_WAITING_BOTS_PER_PLAYER == 2
    app = await make_server()
    lost = reserve_reply_lost_once(app)
    async with eve_with_a_private_lobby(app) as (r, eve, lobby):
        assert said(await eve.request("bot", race=lobby)) == "ok"  # the bot is queued
        [[request]] = lost
        assert [BotRequest.from_json(x).player for x in await r.lrange(REQUESTS, 0, -1)] == [request.player]
        noted = {text(x) for x in await r.zrange(asked_key(eve.player), 0, -1)}
        assert noted == {f"{lobby} {request.player}"}  # counted, though the reply never came
        assert said(await eve.request("bot", race=lobby)) == "ok"
        refused = await eve.request("bot", race=lobby)  # the lost reply's bot is her second
        assert said(refused) == "no-bots", refused
        assert await r.llen(REQUESTS) == 2
        assert await r.zcard(asked_key(eve.player)) == 2


async def test_a_bot_whose_reservation_failed_before_it_ran_answers_internal(make_server):
    app = await make_server()
    fail_first(app.service.bots.queue, "reserve")
    async with eve_with_a_private_lobby(app) as (r, eve, lobby):
        assert said(await eve.request("bot", race=lobby)) == "internal"
        assert await r.llen(REQUESTS) == 0
        assert said(await eve.request("bot", race=lobby)) == "ok"


async def test_a_pushed_request_is_found_wherever_a_worker_moved_it(clean_redis):
    """A worker may pop the request, and claim it, before the look after a lost reply."""
    r = aioredis.Redis.from_url(clean_redis)
    try:
        queue = BotQueue(r)
        now = await now_ms(r)
        await queue.heartbeat("w1", now, 5)
        first, second = (
            BotRequest("race", "greedy", f"tok{i}", f"bot-{i}", GAME, race="R1", expires=now + 60_000)
            for i in range(2)
        )
        assert not await queue.pushed(first)
        assert await queue.reserve([first], now, 5000)
        assert await queue.pushed(first) and not await queue.pushed(second)
        raw = await queue.take(1)
        assert raw is not None and await r.llen(TAKING) == 1
        assert await queue.pushed(first)
        epoch, _playing, why = await queue.claim("w1", 5, now, raw)
        assert (epoch, why) == (1, "") and await r.llen(TAKING) == 0 and await r.hexists(BOTS, first.player)
        assert await queue.pushed(first) and not await queue.pushed(second)
    finally:
        await r.aclose()


async def test_a_bot_found_not_queued_after_a_failure_is_forgotten(make_server):
    """The reservation failed before it ran, and the look after it finds its request nowhere:
    the bot identity minted for it is deleted (as one whose slot another request took), not
    left to its TTL, and it no longer counts against the player's bots."""
    app = await make_server()
    fail_first(app.service.bots.queue, "reserve")
    made = minted(app)
    async with eve_with_a_private_lobby(app) as (r, eve, lobby):
        assert said(await eve.request("bot", race=lobby)) == "internal"
        assert len(made) == 1 and await identities_left(r, made) == 0
        assert await r.zcard(asked_key(eve.player)) == 0


async def test_a_bot_whose_queueing_cannot_be_told_is_kept(make_server):
    """The look after the failure fails too: the request may be queued, so its bot identity
    stays (a worker may play it), and it counts."""
    app = await make_server()
    queue = app.service.bots.queue
    fail_first(queue, "reserve")
    fail_first(queue, "pushed", ATTEMPTS)
    made = minted(app)
    async with eve_with_a_private_lobby(app) as (r, eve, lobby):
        assert said(await eve.request("bot", race=lobby)) == "internal"
        assert len(made) == 1 and await identities_left(r, made) == 2
        assert {text(x) for x in await r.zrange(asked_key(eve.player), 0, -1)} == {f"{lobby} {made[0][0]}"}
