"""An arena pairing whose seating failed after its race was stored is played, not released
(server/handlers/arena_loop.py `seat`, server/handlers/seating.py): releasing it would free
its players to be paired again while they sit in a race. The failure is injected into the
real server's store (a Redis blip right after the commit); the rest is real."""

from __future__ import annotations

from typing import Any

import pytest
from injected import fail_first
from waiting import DEADLINE

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(120)

ARENA: dict[str, Any] = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 100}


async def test_a_pairing_failing_after_its_race_was_stored_is_played(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="ben") as b:
        await a.request(m.ArenaCreate(arena="blip", game="fours-up", duration_ms=60_000))
        fail_first(app.service.store, "add_seat", who=a.player, why="redis blip after the commit")
        for c in (a, b):
            await c.request(m.ArenaJoin(arena="blip"))
        snaps = [
            await c.wait_for(m.RaceSnapshot, lambda s: s.arena == "blip", timeout=DEADLINE) for c in (a, b)
        ]
        race = snaps[0].race
        assert snaps[1].race == race
        # Both stay in that race for the arena: a released pairing would have freed them (the
        # next tick pairs them again, in another race).
        await a.wait_for(m.Started, lambda ev: ev.race == race, timeout=DEADLINE)
        for c in (a, b):
            state: m.ArenaData = await c.request(m.ArenaJoin(arena="blip"))
            assert state.race == race, state
        # One race, the one stored before the failure: a second pairing would seat them twice.
        for c in (a, b):
            assert set(await app.service.store.player_races(c.player)) == {race}
