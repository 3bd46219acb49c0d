"""The rated quick-match pool in Redis, formed by several clients at once."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

from server.ratings.matchmaking import spread, window
from server.ratings.pool import Pool

GAME = "rouge-et-noir"


async def test_join_leave_and_form(r, clock):
    pool = Pool(r, clock)
    t0 = clock.ms
    assert await pool.join(GAME, "a", 20.0, 2)
    clock.ms += 5_000
    assert not await pool.join(GAME, "a", 20.0, 2)  # keeps its place
    assert await pool.join(GAME, "b", 30.0, 2)
    assert await pool.join(GAME, "c", 20.5, 2)
    assert await pool.join(GAME, "d", 25.0, 4)
    races = await pool.form(GAME)
    assert [sorted(w.player for w in g) for g in races] == [["a", "c"]]
    assert {w.player: w.joined_ms for w in races[0]}["a"] == t0
    await pool.leave(GAME, "d")
    assert sorted(w.player for w in await pool.waiting(GAME)) == ["b"]
    with pytest.raises(ValueError):
        await pool.join(GAME, "e", 25.0, 9)


async def test_stale_entries_are_dropped(r, clock):
    pool = Pool(r, clock, stale_ms=60_000)
    await pool.join(GAME, "ghost", 25.0, 2)
    clock.ms += 60_000
    await pool.join(GAME, "b", 25.0, 2)
    assert await pool.form(GAME) == []
    assert [w.player for w in await pool.waiting(GAME)] == ["b"]


async def test_processes_forming_at_once_never_share_a_player(r, clock, clean_redis):
    rng = random.Random(5)
    pool = Pool(r, clock)
    players = [f"p{i:03d}" for i in range(120)]
    for p in players:
        clock.ms += rng.randrange(0, 500)
        await pool.join(GAME, p, rng.gauss(25, 5), rng.choice([2, 3, 4, 8]))
    others = [aioredis.Redis.from_url(clean_redis) for _ in range(3)]
    try:
        formers = [pool] + [Pool(c, clock) for c in others]
        seen: list[str] = []
        for _ in range(40):  # 40 s of sweeps by 4 processes at once
            clock.ms += 1_000
            rounds = await asyncio.gather(*(f.form(GAME) for f in formers))
            for races in rounds:
                for g in races:
                    assert len(g) == g[0].seats
                    assert spread(g) <= window(clock.ms - min(w.joined_ms for w in g))
                    seen.extend(w.player for w in g)
    finally:
        for c in others:
            await c.aclose()
    assert len(seen) == len(set(seen))
    left = {w.player for w in await pool.waiting(GAME)}
    assert left.isdisjoint(seen) and left | set(seen) == set(players)
    assert len(seen) > 60
