"""The end of an arena as a permanent record: the final standings, and the podium in
each winner's record (ArenaStore against a real redis-server, injectable clock)."""

from __future__ import annotations

import json

import pytest
from result_rows import row

from server.arena import Arena, ArenaStore, keys
from server.arena.results import PODIUMS_KEPT
from server.arena.store import Podium


@pytest.fixture
def arena(clock):
    return Arena("pod-1", "racing-aces", starts=clock.now, duration_ms=60_000, time_limit_s=60, name="Podium")


@pytest.fixture
async def store(clients, clock, arena):
    s = ArenaStore(clients(), clock=clock)
    assert await s.create(arena)
    return s


async def play(store, arena, clock, *results):
    """Join everyone, pair, and apply each race's ranking rows (best first, by home), a
    second apart (so equal points are told apart by when they were reached)."""
    players = sorted({p for r in results for p, _ in r})
    for p in players:
        await store.join(arena.id, p, p.upper())
    formed = {frozenset(f.players): f.race for f in await store.pair(arena.id, arena.seats)}
    for r in results:
        clock.now += 1000
        race = formed[frozenset(p for p, _ in r)]
        assert (await store.apply(arena.id, race, [row(p, home) for p, home in r])).status == "ok"


async def test_the_podium_goes_into_the_winners_records_once(store, arena, clock):
    await play(store, arena, clock, [("a", 9), ("b", 3)], [("c", 7), ("d", 2)], [("e", 1), ("f", 0)])
    clock.now = arena.ends
    assert await store.tick(arena) == []  # over: finalized, then the podium recorded
    final = await store.final(arena.id)
    assert [(r.rank, r.standing.player) for r in final] == [
        (1, "a"),
        (2, "c"),
        (3, "e"),
        (4, "b"),
        (5, "d"),
        (6, "f"),
    ]
    assert await store.podiums("a") == [Podium("pod-1", "Podium", "racing-aces", arena.ends, 1, 2, 6)]
    assert [p.rank for p in await store.podiums("c")] == [2]
    assert [p.rank for p in await store.podiums("e")] == [3]
    assert await store.podiums("b") == []  # fourth: no podium
    info = await store.get(arena.id)
    assert info.finalized is not None and info.podium
    assert await store.active() == []  # nothing left to do for it
    # recorded again by another process: the same record
    again = ArenaStore(store.r, clock=clock)
    await again.record_podium(arena.id)
    assert await store.podiums("a") == [Podium("pod-1", "Podium", "racing-aces", arena.ends, 1, 2, 6)]


async def test_no_podium_without_points(store, arena, clock):
    await play(store, arena, clock, [("a", 3), ("b", 3)])  # a tie: both share first, 2 points
    await store.join(arena.id, "idle", "IDLE")
    clock.now = arena.ends
    await store.tick(arena)
    assert [p.rank for p in await store.podiums("a")] == [1]
    assert [p.rank for p in await store.podiums("b")] == [1]
    assert await store.podiums("idle") == []  # never raced: 0 points, no podium


async def test_a_process_dying_between_finalize_and_the_podium(store, arena, clock):
    await play(store, arena, clock, [("a", 9), ("b", 3)])
    clock.now = arena.ends
    assert await store.finalize(arena.id) == "ok"  # ... and the process died here
    assert [i.arena.id for i in await store.active()] == [arena.id]  # still to be finished
    await store.tick(arena)  # any process's next tick
    assert [p.rank for p in await store.podiums("a")] == [1]
    assert await store.active() == []
    assert await store.r.hget(keys.meta(arena.id), "podium") == b"1"


async def test_a_players_latest_podiums_are_kept(store, arena, clock):
    # A player in every arena of a quiet server places in most: the record kept them all, and
    # each profile read (and sent) them all.
    older = {
        f"old-{i}": Podium(f"old-{i}", "Old", "racing-aces", arena.ends - 1000 * (i + 1), 1, 2, 2)
        for i in range(PODIUMS_KEPT)
    }
    await store.r.hset(keys.podiums("a"), mapping={k: json.dumps(p.to_dict()) for k, p in older.items()})
    await play(store, arena, clock, [("a", 9), ("b", 3)])
    clock.now = arena.ends
    await store.tick(arena)
    kept = await store.podiums("a")
    assert len(kept) == PODIUMS_KEPT and kept[0].arena == arena.id  # the newest in, the oldest out
    assert f"old-{PODIUMS_KEPT - 1}" not in {p.arena for p in kept} and "old-0" in {p.arena for p in kept}
