"""`arena` (and join, withdraw) and `arena_berserk` read the one race they need, not every
race formed in the arena (half its players: with thousands of players, hundreds of kB of
JSON read and parsed for each request)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from arena_wire import SERVER
from waiting import DEADLINE

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(60)


async def test_a_players_race_is_read_alone(make_server) -> None:
    app = await make_server(**SERVER)
    store = app.service.handlers[m.Arenas].__self__.store
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="bob") as b:
        await a.request(m.ArenaCreate(arena="one", game="fours-up", duration_ms=60_000))
        for c in (a, b):
            await c.request(m.ArenaJoin(arena="one"))
        snap: m.RaceSnapshot = await a.wait_for(m.RaceSnapshot, lambda s: s.arena == "one", timeout=DEADLINE)

        callers: list[str] = []
        every_race = store.formed

        def counted(arena_id: str) -> Any:
            # the arena loop's sweep reads them all (arena_loop.py); the requests must not
            callers.append(sys._getframe(1).f_code.co_filename)
            return every_race(arena_id)

        store.formed = counted
        got: m.ArenaData = await a.request(m.ArenaGet(arena="one"))
        assert got.race == snap.race and got.joined
        mine: m.RaceSnapshot = await a.request(m.ArenaBerserk(arena="one", race=snap.race))
        assert next(p for p in mine.players if p.player == a.player).berserk
        with pytest.raises(client.ServerError) as e:
            await a.request(m.ArenaBerserk(arena="one", race="a0000000000000000"))
        assert e.value.code == "bad-arena"
        left: m.ArenaData = await b.request(m.ArenaWithdraw(arena="one"))
        assert left.race == snap.race and not left.joined
    assert not [f for f in callers if f.endswith(("handlers/arena.py", "handlers\\arena.py"))]
