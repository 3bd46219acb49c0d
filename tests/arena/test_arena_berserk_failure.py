"""A berserk whose arena record failed after the race took it (server/handlers/arena.py
`berserk`: the race is changed first, the arena's `{arena:ID}:berserk` written after) still
scores its win's extra point: the race's own flag counts when its result is applied
(server/handlers/arena_loop.py). The race's clock was halved either way; the record, lost
to a Redis blip between the two writes, could never be written again once the race had
started (a second `arena_berserk` is refused then). The failure is injected into the real
server's arena store; the rest is real."""

from __future__ import annotations

from typing import Any

import pytest
from arena_wire import one_card_more_home
from waiting import DEADLINE, until

import client
from protocol import messages as m
from server.arena import ArenaStore

pytestmark = pytest.mark.timeout(120)

# A countdown long enough to berserk in.
ARENA = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 200, "countdown_ms": 3000}


def failing_berserk_once(app: Any) -> list[str]:
    """The arena store's `berserk` record fails once (before Redis ran it): the races it failed for."""
    store: ArenaStore = app.service.handlers[m.ArenaBerserk].__self__.store
    real = store.berserk
    failed: list[str] = []

    async def flaky(arena_id: str, race: str, player: str) -> bool:
        if not failed:
            failed.append(race)
            raise ConnectionError("redis blip while recording the berserk")
        return await real(arena_id, race, player)

    store.berserk = flaky  # type: ignore[method-assign]
    return failed


async def test_a_berserk_whose_record_failed_still_scores(make_server) -> None:
    app = await make_server(**ARENA)
    failed = failing_berserk_once(app)
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="bob") as b:
        await a.request(m.ArenaCreate(arena="bzf", game="racing-aces", duration_ms=60_000, time_limit_s=60))
        for c in (a, b):
            await c.request(m.ArenaJoin(arena="bzf"))
        paired: m.RaceSnapshot = await a.wait_for(
            m.RaceSnapshot, lambda s: any(p.player == a.player for p in s.players), timeout=DEADLINE
        )
        race = paired.race
        with pytest.raises(client.ServerError) as e:
            await a.request(m.ArenaBerserk(arena="bzf", race=race))
        assert e.value.code == "internal" and failed == [race]
        _now, stored = await app.service.store.load_race(race)
        assert stored is not None and {p.player: p.berserk for p in stored.players} == {
            a.player: True,
            b.player: False,
        }  # her clock is halved: the race took the berserk before the record failed
        await a.wait_for(m.Started, lambda ev: ev.race == race, timeout=DEADLINE)

        # ann gets a card more home than the deal gave, and both stop: her win
        await one_card_more_home(a, race)
        for c in (a, b):
            await c.finish(race)
        end: m.End = await a.wait_for(m.End, lambda ev: ev.race == race, timeout=DEADLINE)
        assert [(r.player, r.rank) for r in end.ranking] == [(a.player, 1), (b.player, 2)]

        async def my_races() -> list[m.ArenaRace]:
            mine: m.ArenaData = await a.request(m.ArenaGet(arena="bzf"))
            return mine.races

        races = await until(my_races, what="the race's result applied")
        assert [(r.race, r.points) for r in races] == [(race, 2 + 1)]  # the win, and berserk
        result = (await ArenaStore(app.store.redis).results("bzf"))[race]
        assert result["berserk"] == [a.player]
