"""Berserk through the protocol against a real server: half the clock for the berserk
player only, their moves refused after it, and one more point for the win."""

from __future__ import annotations

import pytest
from arena_wire import one_card_more_home
from waiting import until

import client
from protocol import messages as m
from server.arena import ArenaStore
from server.arena.scoring import score_race

pytestmark = pytest.mark.timeout(120)

# A countdown long enough to berserk in; the race clock 30 s, so the half clock is 15 s.
ARENA = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 200, "countdown_ms": 3000}


async def test_berserk_halves_one_clock_and_wins_one_more_point(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ann") as a, client.connect(app.ws_url, name="bob") as b:
        await a.request(m.ArenaCreate(arena="bz", game="racing-aces", duration_ms=60_000, time_limit_s=30))
        for c in (a, b):
            await c.request(m.ArenaJoin(arena="bz"))
        paired: m.RaceSnapshot = await a.wait_for(
            m.RaceSnapshot, lambda s: any(p.player == a.player for p in s.players), timeout=60
        )
        race = paired.race
        with pytest.raises(client.ServerError) as e:
            await b.request(m.ArenaBerserk(arena="bz", race="a" + "0" * 16))
        assert e.value.code == "bad-arena"
        got: m.RaceSnapshot = await a.request(m.ArenaBerserk(arena="bz", race=race))
        assert {p.player: p.berserk for p in got.players} == {a.player: True, b.player: False}
        started: m.Started = await a.wait_for(m.Started, lambda ev: ev.race == race, timeout=60)
        assert started.deadline == started.starts_at + 30_000  # the race's clock is unchanged
        own = started.starts_at + 15_000
        # the move cache knows her own deadline from the start (an illegal move after it: game-over)
        assert app.service.games[(race, a.player)].dl == own
        assert app.service.games[(race, b.player)].dl is None

        # ann plays until she has a card more home than the deal gave, then waits
        board, strategy = await one_card_more_home(a, race)

        # her half clock runs out: she is stopped there while bob plays on
        stop: m.Progress = await b.wait_for(
            m.Progress,
            lambda p: p.race == race and p.player == a.player and p.status == "timeout",
            timeout=60,
        )
        assert stop.at == own
        move = strategy.choose(board.view) if board.has_view else None
        if move is not None:
            with pytest.raises(client.ServerError) as e:
                await a.move(race, move)
            assert e.value.code == "game-over"
        await b.finish(race)
        end: m.End = await a.wait_for(m.End, lambda ev: ev.race == race, timeout=60)
        # more cards home than bob: ann's win, alone; bob made no move (absent: 0)
        assert [(r.player, r.rank, r.status) for r in end.ranking] == [
            (a.player, 1, "timeout"),
            (b.player, 2, "finished"),
        ]

        async def my_races() -> list[m.ArenaRace]:
            mine: m.ArenaData = await a.request(m.ArenaGet(arena="bz"))
            return mine.races

        races = await until(my_races)  # the result is applied just after the end
        assert [(r.race, r.points) for r in races][:1] == [(race, 2 + 1)]  # the win, and berserk

        # the arena's record of the race: the berserk, and points equal to the recomputation
        result = (await ArenaStore(app.store.redis).results("bz"))[race]
        assert a.player is not None
        assert result["berserk"] == [a.player]
        again = {rp.player: rp.points for rp in score_race(result["ranking"], {}, {a.player})}
        assert {rp["player"]: rp["points"] for rp in result["points"]} == again == {a.player: 3, b.player: 0}
