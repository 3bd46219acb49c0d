"""The client library's arena methods against a real server (fixtures from tests/conftest.py)."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(90)

SERVER = {
    "arena_create": 1,
    "arena_schedule": "off",
    "arena_tick_ms": 100,
    "arena_update_ms": 100,
    "countdown_ms": 30_000,  # time to berserk (the test never waits for the start: a long one costs nothing)
}


async def test_list_join_standings_featured_berserk_withdraw(make_server) -> None:
    app = await make_server(**SERVER)
    async with client.connect(app.ws_url, name="ada") as a, client.connect(app.ws_url, name="bob") as b:
        await a.request(m.ArenaCreate(arena="lib", game="racing-aces", duration_ms=60_000, time_limit_s=60))
        listed = await a.arenas()
        assert [s.id for s in listed.arenas] == ["lib"] and listed.arenas[0].status == "running"
        info = await a.arena("lib")
        assert not info.joined and info.races == [] and info.featured is None

        joined = await a.arena_join("lib")
        assert joined.joined and joined.arena.players == 1
        board = await a.arena_standings("lib", top=5, around=1, watch=True)
        assert board.count == 1 and board.me is not None and board.me.player == a.player

        await b.arena_join("lib")
        # paired: the race's snapshot comes as an event, counting down
        snap: m.RaceSnapshot = await a.wait_for(
            m.RaceSnapshot, lambda s: any(p.player == b.player for p in s.players), timeout=DEADLINE
        )
        assert snap.status == "countdown"
        update: m.ArenaUpdate = await a.wait_for(
            m.ArenaUpdate, lambda u: u.count == 2 and u.featured == snap.race, timeout=DEADLINE
        )
        assert update.arena == "lib" and {r.player for r in update.top} == {a.player, b.player}
        assert await a.featured("lib") == snap.race
        assert (await b.arena("lib")).race == snap.race

        berserked = await a.arena_berserk("lib", snap.race)
        assert [p.berserk for p in berserked.players if p.player == a.player] == [True]
        with pytest.raises(client.ServerError) as e:
            await a.arena_berserk("lib", "a" + "0" * 16)
        assert e.value.code == "bad-arena"

        out = await a.arena_withdraw("lib")
        assert not out.joined and out.race == snap.race  # the race in progress still counts
        assert (await a.arena_unwatch("lib")).rid is not None
