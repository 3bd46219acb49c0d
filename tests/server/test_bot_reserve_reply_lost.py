"""A `bot` whose push was lost on its way back (server/handlers/bots.py `_asked`): Redis ran the
reservation script, so the bot was queued for a worker, and then the reply was lost. That bot
counts against the player's MAX_WAITING_BOTS_PER_PLAYER like any: it used to be noted only once
the push had answered, so a player whose pushes failed so got more bots queued than the cap.
The failure is injected into the real server's bot queue; the rest is real."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from injected import Blip
from redis_replies import text
from test_abuse_caps import GAME, free_slots, said
from wsclient import player

from server.handlers.bots import MAX_WAITING_BOTS_PER_PLAYER, asked_key
from server.storage.bots import REQUESTS, BotRequest


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
    r = aioredis.Redis.from_url(app.settings.redis)
    eve = await player(app.ws_url, "eve")
    try:
        lobby = (await eve.request("create", game=GAME, seats=8, private=True))["race"]
        await free_slots(r, 20)
        assert said(await eve.request("bot", race=lobby)) == "internal"
        [[request]] = lost
        assert [BotRequest.from_json(x).player for x in await r.lrange(REQUESTS, 0, -1)] == [request.player]
        noted = {text(x) for x in await r.zrange(asked_key(eve.player), 0, -1)}
        assert noted == {f"{lobby} {request.player}"}  # counted, though the reply never came
        assert said(await eve.request("bot", race=lobby)) == "ok"
        refused = await eve.request("bot", race=lobby)  # the lost reply's bot is her second
        assert said(refused) == "no-bots", refused
        assert await r.llen(REQUESTS) == 2
        assert await r.zcard(asked_key(eve.player)) == 2
    finally:
        await eve.close()
        await r.aclose()
