"""An arena pairing whose seating failed after its race was stored is played, not released
(server/handlers/arena_loop.py `seat`, server/handlers/seating.py): releasing it would free
its players to be paired again while they sit in a race. The failure is injected into the
real server's store (a Redis blip right after the commit); the rest is real."""

from __future__ import annotations

from typing import Any

import pytest
from waiting import DEADLINE

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(120)

ARENA: dict[str, Any] = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 100}


def failing_seat_once(app: Any, pid: str) -> None:
    """The store's `add_seat` fails once for `pid`: after the race's commit."""
    store = app.service.store
    real = store.add_seat
    calls = {"n": 0}

    async def flaky(who: str, *args: Any, **kw: Any) -> Any:
        if who == pid and calls["n"] == 0:
            calls["n"] += 1
            raise ConnectionError("redis blip after the commit")
        return await real(who, *args, **kw)

    store.add_seat = flaky


async def test_a_pairing_failing_after_its_race_was_stored_is_played(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="ben") as b:
        await a.request(m.ArenaCreate(arena="blip", game="fours-up", duration_ms=60_000))
        failing_seat_once(app, a.player)
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
