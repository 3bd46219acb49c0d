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
from injected import Blip
from redis_replies import text
from test_rematch_bot_cap import race_with_bots_finished

import client
from protocol import messages as m
from server.handlers.bots import asked_key
from server.storage.bots import REQUESTS, BotQueue, BotRequest

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
