"""An `arena` reply lists only the player's latest RACES_LISTED finished races (docs/protocol.md
§5a): a day-long arena of short races can hold thousands of one player's, and every reply sent
them all (the web client reads the reply on each update of the arena's page)."""

from __future__ import annotations

import json

import pytest
from arena_wire import SERVER

import client
from protocol import messages as m
from server.arena import keys
from server.handlers.arena import RACES_LISTED

pytestmark = pytest.mark.timeout(60)


async def test_the_reply_lists_the_latest_races_oldest_first(make_server) -> None:
    app = await make_server(**SERVER)
    store = app.service.handlers[m.Arenas].__self__.store
    async with client.connect(app.ws_url, name="ann") as a:
        await a.request(m.ArenaCreate(arena="long", game="fours-up", duration_ms=60_000))
        # the races a long arena would have recorded for ann, as the result script writes them
        played = [json.dumps([f"r{i:016x}", 2, i % 3]) for i in range(RACES_LISTED + 5)]
        await store.r.rpush(keys.history("long", a.player), *played)
        got: m.ArenaData = await a.request(m.ArenaGet(arena="long"))
    assert [(r.race, r.rank, r.points) for r in got.races] == [
        (f"r{i:016x}", 2, i % 3) for i in range(5, RACES_LISTED + 5)
    ]
