"""An arena on a real 3-master Redis Cluster: every script stays in the arena's one slot."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from redis.asyncio.cluster import ClusterNode, RedisCluster

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from scale_procs import Procs, start_cluster  # noqa: E402

from server.arena import Arena, ArenaStore  # noqa: E402

T0 = 1_764_547_200_000


@pytest.fixture
def cluster_nodes(tmp_path):
    procs = Procs()
    try:
        yield [("127.0.0.1", n.port) for n in start_cluster(procs, tmp_path / "c")]
    finally:
        procs.cleanup()


def row(player, home):
    return {
        "player": player,
        "name": player,
        "status": "timeout",
        "won": False,
        "home": home,
        "moves": 3,
        "time_ms": None,
        "home_at_ms": 100,
    }


async def test_arena_on_a_cluster(cluster_nodes):
    now = [T0]
    clients = [RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in cluster_nodes]) for _ in range(2)]
    for c in clients:
        await c.initialize()
    a, b = (ArenaStore(c, clock=lambda: now[0]) for c in clients)
    try:
        arenas = [
            Arena(f"c-{i}", "racing-aces", starts=T0, duration_ms=60_000, time_limit_s=30) for i in range(3)
        ]
        for arena in arenas:
            assert await a.create(arena)
            await asyncio.gather(*(b.join(arena.id, f"p{k}", f"P{k}") for k in range(8)))
            formed = await asyncio.gather(a.pair(arena.id, 2), b.pair(arena.id, 2))
            races = [f for fs in formed for f in fs]
            seated = [p for f in races for p in f.players]
            assert len(seated) == len(set(seated)) == 8
            assert await a.berserk(arena.id, races[0].race, races[0].players[0])
            now[0] += 2_000
            for f in races:
                outs = await asyncio.gather(
                    a.apply(arena.id, f.race, [row(f.players[0], 9), row(f.players[1], 2)]),
                    b.apply(arena.id, f.race, [row(f.players[0], 9), row(f.players[1], 2)]),
                )
                assert sorted(o.status for o in outs) == ["dup", "ok"]
            board = await a.standings(arena.id, top=3, player="p0", around=1)
            assert board.count == 8 and board.me is not None
            assert board.top[0].standing.points == 3  # the berserk winner
            assert await b.featured(arena.id) is None
            now[0] = arena.ends
            assert await b.finalize(arena.id) == "ok"
            assert await a.all_standings(arena.id) == await b.final(arena.id)
            now[0] = T0
        assert await a.listing(T0, T0 + 1) == ["c-0", "c-1", "c-2"]
    finally:
        for c in clients:
            await c.aclose()
