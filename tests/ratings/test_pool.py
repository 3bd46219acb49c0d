"""The rated quick-match pool in Redis, formed by several clients at once."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

from server.ratings.matchmaking import spread, window
from server.ratings.pool import Pool, Taken
from server.ratings.seats import PoolSessions

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
    assert [sorted(w.player for w in g.members) for g in races] == [["a", "c"]]
    assert {w.player: w.joined_ms for w in races[0].members}["a"] == t0
    await pool.leave(GAME, "d")
    assert sorted(w.player for w in await pool.waiting(GAME)) == ["b"]
    with pytest.raises(ValueError):
        await pool.join(GAME, "e", 25.0, 9)


def carried(t: Taken) -> tuple[set[str], set[str]]:
    return set(t.holders), set(t.claims)


async def test_an_entry_takes_its_holders_and_claims_out_with_it(r, clock):
    """What takes an entry out takes its holders, its seat claims and its session with it, in
    the same step: the player joining again right after makes an entry with its own."""
    pool, sessions = Pool(r, clock), PoolSessions(r)
    await pool.join(GAME, "a", 20.0, 2, "conn-a", "tok-a1", "s-a1")
    await pool.join(GAME, "a", 20.0, 2, "conn-a2", "tok-a2", "s-a2")  # the same entry, queued again
    await pool.join(GAME, "b", 20.0, 2, "conn-b", "tok-b", "s-b")
    [formed] = await pool.form(GAME)
    assert carried(formed.taken["a"]) == ({"conn-a", "conn-a2"}, {"tok-a1", "tok-a2"})
    assert formed.taken["a"].session == "s-a2" and formed.taken["b"].session == "s-b"
    assert formed.claims()["b"] == ("tok-b",)
    assert await sessions.get(GAME, "a") == ""
    # a, again while the group is being seated: the new entry's own holder, claim and session
    assert await pool.join(GAME, "a", 20.0, 2, "conn-a3", "tok-a3", "s-a3")
    assert await pool.release(GAME, "a", "conn-a") is None  # a holder of the taken entry: nothing
    # Not seated after all: put back, a's merged into the new entry (the player's).
    await pool.restore(GAME, formed.members, formed.taken)
    assert await sessions.get(GAME, "a") == "s-a3" and await sessions.get(GAME, "b") == "s-b"
    assert await pool.release(GAME, "a", "conn-a3") is None  # conn-a, conn-a2 hold it still
    assert set(await pool.leave(GAME, "a") or ()) == {"tok-a1", "tok-a2", "tok-a3"}
    assert await sessions.get(GAME, "a") == ""
    assert await pool.release(GAME, "b", "conn-b") == ("tok-b",)  # its last holder
    assert await pool.leave(GAME, "b") is None
    assert await pool.waiting(GAME) == [] and await sessions.get(GAME, "b") == ""


async def test_a_stale_entry_is_dropped_with_its_claims(r, clock):
    pool = Pool(r, clock, stale_ms=60_000)
    await pool.join(GAME, "ghost", 25.0, 2, "conn", "tok")
    clock.ms += 60_000
    dropped: dict[str, tuple[str, ...]] = {}
    assert await pool.form(GAME, dropped) == []
    assert dropped == {"ghost": ("tok",)}
    assert await pool.leave(GAME, "ghost") is None


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
                for formed in races:
                    g = formed.members
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
