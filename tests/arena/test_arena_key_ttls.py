"""An arena's working keys expire on their own should its finalization never run
(server/arena/keys.py, scripts.py ``WORK_TTL``).

The finalization deletes them (joined, free, busy, races, berserk, seq, last); it runs from the
arena loop, which looks back a day and an hour from an arena's start: after an outage that long
nothing finalizes the arena, and they used to stay for good. Each script that writes one now
gives it a TTL of ``WORK_KEEP_MS`` past the arena's end (past now, once the end is behind): each
key then expires at the same point, well after the end and the grace, whenever it was written,
so none goes while the arena runs. Against a real redis-server, on the arena clock of the tests
(a fake one, moved by hand); the TTLs are Redis's own, read with PTTL.
"""

from __future__ import annotations

import pytest
from result_rows import row

from server.arena import Arena, ArenaStore, keys
from server.arena.keys import WORK_KEEP_MS
from server.arena.pairing import Window

WORKING = {
    "joined": keys.joined,
    "free": keys.free,
    "busy": keys.busy,
    "races": keys.races,
    "berserk": keys.berserk,
    "seq": keys.seq,
    "last": keys.last,
}


@pytest.fixture
def arena(clock):
    return Arena("t-1", "racing-aces", starts=clock.now, duration_ms=60_000, seats=2, time_limit_s=60)


@pytest.fixture
async def store(clients, clock, arena):
    s = ArenaStore(clients(), clock=clock, window=Window(base_window=4, widen_per_s=10.0, max_wait_ms=3_000))
    assert await s.create(arena)
    return s


#: Real time the test itself may take between a write and the PTTL read of it.
SLACK_MS = 10_000


async def ttls(store, arena_id: str) -> dict[str, int]:
    """The PTTL of each working key that exists (-1: none)."""
    out = {}
    for name, key in WORKING.items():
        ttl = await store.r.pttl(key(arena_id))
        if ttl != -2:
            out[name] = ttl
    return out


async def written_now(store, arena, now: int, names: set[str]) -> None:
    """The working keys `names`, just written at `now` (arena clock), expire WORK_KEEP_MS after
    the arena's end (after `now`, past the end): each has that TTL, less the test's own time."""
    seen = await ttls(store, arena.id)
    assert names <= set(seen), (names, seen)
    want = max(arena.ends - now, 0) + WORK_KEEP_MS
    for name in names:
        assert want - SLACK_MS <= seen[name] <= want, (name, seen[name], want)  # was -1: for good


async def test_every_working_key_expires_keep_ms_after_the_end_whenever_written(store, arena, clock):
    for p in ("a", "b", "c", "d"):
        await store.join(arena.id, p, p.upper())
    await written_now(store, arena, clock.now, {"joined", "free"})
    clock.now += 20_000  # mid-arena: a later write sets the TTL that ends at the same point
    one, two = await store.pair(arena.id, arena.seats)
    await written_now(store, arena, clock.now, {"busy", "races", "seq"})
    assert await store.berserk(arena.id, one.race, one.players[0])
    await written_now(store, arena, clock.now, {"berserk"})
    clock.now += 10_000
    assert (
        await store.apply(arena.id, one.race, [row(p, 9 - i) for i, p in enumerate(one.players)])
    ).status == "ok"
    await written_now(store, arena, clock.now, {"free", "seq", "last"})
    await store.r.delete(keys.free(arena.id))  # to see the release write it anew
    assert await store.release(arena.id, two.race)
    await written_now(store, arena, clock.now, {"free"})
    # None of them expires before the grace is over (a formed race may be applied until then).
    grace_end = arena.ends + arena.grace_ms + store.countdown_ms
    seen = await ttls(store, arena.id)
    assert seen and all(ttl > grace_end - clock.now + SLACK_MS for ttl in seen.values()), seen


async def test_a_key_written_after_the_end_keeps_its_ttl_from_then(store, arena, clock):
    """In the grace (a race formed before the end applied after it): WORK_KEEP_MS from now."""
    for p in ("a", "b"):
        await store.join(arena.id, p, p.upper())
    [race] = await store.pair(arena.id, arena.seats)
    clock.now = arena.ends + 30_000
    await store.r.delete(keys.last(arena.id), keys.seq(arena.id))  # to see the apply write them anew
    assert (await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])).status == "ok"
    await written_now(store, arena, clock.now, {"free", "seq", "last"})


async def test_the_finalization_still_deletes_them_and_the_record_stays_permanent(store, arena, clock):
    for p in ("a", "b"):
        await store.join(arena.id, p, p.upper())
    [race] = await store.pair(arena.id, arena.seats)
    assert (await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])).status == "ok"
    clock.now = arena.ends
    assert await store.finalize(arena.id) == "ok"
    assert await ttls(store, arena.id) == {}
    for key in (keys.meta, keys.standings, keys.board, keys.results, keys.final):
        assert await store.r.pttl(key(arena.id)) == -1, key
