"""A rematch's bot whose push was lost on its way back (server/handlers/bots.py
`send_rematch_bot`): Redis ran the LPUSH, so the bot is queued for a worker, and then the
reply was lost. The rematch used to take that for a failure of its offer to the bot (logged,
a Redis outage counted) though the bot came; it now looks, as a `bot` does (`Bots._push`),
finds the request queued and counts it as any. The failure is injected into the real
server's bot queue; the rest is real (no bot worker runs)."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from injected import Blip, fail_first
from redis_replies import text
from test_rematch_bot_cap import race_with_bots_finished

import client
from protocol import messages as m
from server.handlers.bots import asked_key
from server.storage.bots import REQUESTS, BotQueue, BotRequest
from server.storage.keys import profile_key, session_key

pytestmark = pytest.mark.timeout(60)


def push_reply_lost_once(app: Any) -> list[BotRequest]:
    """The bot queue's first `push` runs in Redis, then fails as if its reply were lost: the
    requests of that lost reply."""
    queue = app.service.bots.queue
    real = queue.push
    lost: list[BotRequest] = []

    async def flaky(request: BotRequest) -> None:
        await real(request)
        if not lost:
            lost.append(request)
            raise Blip("redis blip: the push's reply lost")

    queue.push = flaky
    return lost


def failures(app: Any) -> list[str]:
    """What the server reports as failed from now on (`failed`: logged, or counted in an outage)."""
    seen: list[str] = []
    real = app.service.failed

    def failed(what: str, exc: BaseException) -> None:
        seen.append(what)
        real(what, exc)

    app.service.failed = failed
    return seen


async def test_a_rematch_bot_whose_push_reply_was_lost_is_queued_and_no_failure(server) -> None:
    r = aioredis.Redis.from_url(server.settings.redis)
    try:
        async with client.connect(server.ws_url, name="ann") as ann:
            old = await race_with_bots_finished(server.ws_url, ann, BotQueue(r), 1)
            lost = push_reply_lost_once(server)
            failed = failures(server)
            new = await ann.request(m.Rematch(race=old))
            [request] = lost
            assert request.race == new.race
            assert [BotRequest.from_json(x) for x in await r.lrange(REQUESTS, 0, -1)] == [request]
            assert ann.player is not None
            asked = {text(x) for x in await r.zrange(asked_key(ann.player), 0, -1)}
            assert asked == {f"{new.race} {request.player}"}
            assert failed == []
    finally:
        await r.aclose()


async def test_a_rematch_bot_found_not_queued_is_forgotten(server) -> None:
    """The push failed before it ran: the failure is reported, and the bot identity minted for
    it is deleted (it waited out its TTL) and no longer counts against the host."""
    r = aioredis.Redis.from_url(server.settings.redis)
    queue = server.service.bots.queue
    try:
        async with client.connect(server.ws_url, name="ann") as ann:
            old = await race_with_bots_finished(server.ws_url, ann, BotQueue(r), 1)
            fail_first(queue, "push")
            made: list[tuple[str, str]] = []
            real_new_bot = queue.new_bot

            async def new_bot(*args: Any) -> tuple[str, str]:
                made.append(await real_new_bot(*args))
                return made[-1]

            queue.new_bot = new_bot
            failed = failures(server)
            new = await ann.request(m.Rematch(race=old))
            assert new.race != old and len(failed) == 1
            [(pid, token)] = made
            assert await r.exists(profile_key(pid), session_key(token)) == 0
            assert await r.llen(REQUESTS) == 0
            assert ann.player is not None and await r.zcard(asked_key(ann.player)) == 0
    finally:
        await r.aclose()
