"""A lonely quick-matcher's bot (server/handlers/bots.py `_quick_fallback`) is still asked for
after a Redis blip while it waited: the fallback looks again the next second, as it does
while the workers are busy. It used to end at the first failure, the player then waiting
alone in the queue for good. The failure is injected into the real server's bot queue; the
rest is real (the worker is one that reports a free slot, as test_server_audit_fixes.py's)."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from injected import fail_first
from test_server_quick_queue import GAME, queued
from waiting import until
from wsclient import player

from server.storage.bots import REQUESTS, BotQueue, BotRequest, now_ms


def failing_in_queue_once(app: Any) -> dict[str, int]:
    """The store's `quick_waiting` (the fallback's first read) fails once."""
    return fail_first(app.service.store, "quick_waiting", why="redis blip while the player waits for a bot")


async def test_a_lonely_player_gets_a_bot_after_a_blip(make_server, clean_redis):
    app = await make_server(quick_bot_after_s=1)
    calls = failing_in_queue_once(app)
    r = aioredis.Redis.from_url(clean_redis)
    q = BotQueue(r)
    ada = await player(app.ws_url, "ada")
    await queued(ada)

    async def asked() -> list[Any]:
        await q.heartbeat("w1", await now_ms(r), 1)  # a worker with a free slot, alive
        return list(await r.lrange(REQUESTS, 0, -1))

    (raw,) = await until(asked, what="a bot asked for ada's quick-match")
    request = BotRequest.from_json(raw)
    assert (request.kind, request.game, request.seats) == ("quick", GAME, 2)
    assert calls["n"] >= 2  # the failed look, then the one that asked
    await ada.close()
    await r.aclose()
