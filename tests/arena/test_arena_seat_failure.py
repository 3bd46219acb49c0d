"""An arena pairing whose seating failed after its race was stored is played, not released
(server/handlers/arena_loop.py `seat`, server/handlers/seating.py): releasing it would free
its players to be paired again while they sit in a race. And one released because its race
was not stored (by the seating, or by the repair once lost) stays so: its creation, sent on a
connection that failed and reaching Redis only afterwards, stores nothing. The failures are
injected into the real server's store (a Redis blip right after the commit, or a commit whose
reply was lost); the rest is real."""

from __future__ import annotations

from typing import Any

import pytest
from injected import Blip, Held, fail_first, held_first
from waiting import DEADLINE

import client
from protocol import messages as m
from server import retries
from server.handlers import arena_loop
from server.storage import Conflict

pytestmark = pytest.mark.timeout(120)

ARENA: dict[str, Any] = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 100}


async def both_paired(a: Any, b: Any) -> str:
    """`a` and `b` join the arena "blip" and are paired in one race: its id."""
    for c in (a, b):
        await c.request(m.ArenaJoin(arena="blip"))
    snaps = [await c.wait_for(m.RaceSnapshot, lambda s: s.arena == "blip", timeout=DEADLINE) for c in (a, b)]
    race = snaps[0].race
    assert snaps[1].race == race
    return race


async def test_a_pairing_failing_after_its_race_was_stored_is_played(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="ben") as b:
        await a.request(m.ArenaCreate(arena="blip", game="fours-up", duration_ms=60_000))
        fail_first(app.service.store, "add_seat", who=a.player, why="redis blip after the commit")
        race = await both_paired(a, b)
        # Both stay in that race for the arena: a released pairing would have freed them (the
        # next tick pairs them again, in another race).
        await a.wait_for(m.Started, lambda ev: ev.race == race, timeout=DEADLINE)
        for c in (a, b):
            state: m.ArenaData = await c.request(m.ArenaJoin(arena="blip"))
            assert state.race == race, state
        # One race, the one stored before the failure: a second pairing would seat them twice.
        for c in (a, b):
            assert set(await app.service.store.player_races(c.player)) == {race}


async def paired_again_after_a_lost_creation(app: Any, held: Held) -> None:
    """ann and ben, paired, their race's creation lost (`held`): once released they are paired
    again in another race, and the lost creation, reaching Redis then, stores nothing."""
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="ben") as b:
        await a.request(m.ArenaCreate(arena="blip", game="fours-up", duration_ms=60_000))
        race = await both_paired(a, b)
        assert held.call is not None
        lost = held.call[0][1].race
        assert lost != race
        with pytest.raises(Conflict, match="given up"):
            await held.late()
        store = app.service.store
        _now, stored = await store.load_race(lost)
        assert stored is None
        for c in (a, b):
            assert await store.player_races(c.player) == [race]


async def test_a_released_pairings_creation_arriving_late_stores_nothing(make_server) -> None:
    app = await make_server(**ARENA)
    await paired_again_after_a_lost_creation(app, held_first(app.service.store, "commit", who=0))


async def test_a_pairing_released_by_the_repair_stays_released(make_server, monkeypatch) -> None:
    """The seating cannot tell whether the race was stored (every look fails): the repair
    releases the pairing once lost, and gives its race up as it finds it missing."""
    monkeypatch.setattr(arena_loop, "LOST_AFTER_MS", 0)
    app = await make_server(**ARENA)
    store = app.service.store
    held = held_first(store, "commit", who=0)
    real_load, blind = store.load_race, {"n": 0}

    async def load_race(rid: str, **kw: Any) -> Any:
        # The seating's looks at the lost race (all of them: the outcome is unknown) fail.
        if held.call is not None and rid == held.call[0][1].race and blind["n"] < retries.ATTEMPTS:
            if kw.get("void"):
                blind["n"] += 1
                raise Blip("redis blip while looking for a lost race")
        return await real_load(rid, **kw)

    monkeypatch.setattr(store, "load_race", load_race)
    await paired_again_after_a_lost_creation(app, held)
