"""The final standings of a finalized arena are read and parsed once per process while among
the FINALS_KEPT latest asked for, not for every `arena_standings` (docs/protocol.md §5a): the
record never changes, and parsing one of 10,000 players took the event loop ~120 ms."""

from __future__ import annotations

from typing import Any

import pytest
from arena_wire import SERVER
from waiting import until

import client
from protocol import messages as m
from server.handlers.arena import FINALS_KEPT

pytestmark = pytest.mark.timeout(60)


async def test_the_final_standings_are_read_once_while_kept(make_server) -> None:
    app = await make_server(**SERVER)
    h = app.service.handlers[m.Arenas].__self__
    store = h.store
    now = app.service.now_ms()
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="bob") as b:
        ids = [f"done{i}" for i in range(FINALS_KEPT + 1)]
        for arena_id in ids:
            await a.request(m.ArenaCreate(arena=arena_id, game="fours-up", starts=now, duration_ms=10_000))
            for c in (a, b):
                await c.request(m.ArenaJoin(arena=arena_id))
                await c.request(m.ArenaWithdraw(arena=arena_id))  # never paired
        app.service.offset_ms += 60_000  # every arena is over: the loop finalizes them

        async def finalized() -> bool:
            # podium recorded too: the loop (record_podium reads the final standings) is done
            infos = [await store.get(i) for i in ids]
            return all(info is not None and info.finalized and info.podium for info in infos)

        await until(finalized, what="the arenas finalized, their podiums recorded")
        reads: list[str] = []
        read = store.final

        async def counted(arena_id: str) -> Any:
            reads.append(arena_id)
            return await read(arena_id)

        store.final = counted
        for _ in range(3):
            got: m.ArenaStandingsData = await a.request(m.ArenaStandings(arena=ids[0]))
            assert got.final and got.count == 2 and got.me is not None
            assert {r.player for r in got.top} == {a.player, b.player}
        assert reads == [ids[0]]
        # the others pushed it out: read again once asked for after them
        for arena_id in ids[1:]:
            await b.request(m.ArenaStandings(arena=arena_id))
        got = await a.request(m.ArenaStandings(arena=ids[0]))
        assert got.count == 2 and reads == [*ids, ids[0]]
        # a running arena is not kept: its standings are the live ones
        await a.request(m.ArenaCreate(arena="live", game="fours-up", duration_ms=60_000))
        await a.request(m.ArenaJoin(arena="live"))
        live: m.ArenaStandingsData = await a.request(m.ArenaStandings(arena="live"))
        assert not live.final and live.count == 1 and "live" not in h.finals
