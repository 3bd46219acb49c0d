"""200 bots in one short arena across two real server processes sharing one Redis.

Every player's points equal the sum over their races recomputed from the
races' rankings (replayed in the arena's own order, streaks and berserks
included); no player is ever in two races at once; both processes show the
same standings, equal to the final record; the winners are in their records.

The bots play a few moves per race and then declare finished, so that the
load is the arena's (pairing, seating, applying, live standings), not the
bots' strategy.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict

import pytest
import redis.asyncio as aioredis
from waiting import DEADLINE, until

import client
from client.bots.arena import ArenaBot, play_arena
from client.bots.strategies import GreedyStrategy
from protocol import messages as m
from server.arena import ArenaStore
from server.arena.scoring import score_race

pytestmark = [pytest.mark.scale200, pytest.mark.timeout(600)]

PLAYERS = 200
ARENA_MS = 20_000
FLAGS = [
    "--arena-create",
    "1",
    "--arena-schedule",
    "off",
    "--arena-tick-ms",
    "200",
    "--arena-update-ms",
    "250",
    "--max-conn-per-addr",
    str(4 * PLAYERS),  # every bot and watcher comes from 127.0.0.1
]


def recomputed(results: dict[str, dict]) -> dict[str, int]:
    """Each player's points, replaying the applied races in the arena's order from their rankings."""
    points: dict[str, int] = defaultdict(int)
    streaks: dict[str, int] = defaultdict(int)
    for res in sorted(results.values(), key=lambda r: r["seq"]):
        for rp in score_race(res["ranking"], dict(streaks), res["berserk"]):
            points[rp.player] += rp.points
            streaks[rp.player] = rp.streak
    return dict(points)


def overlapping(results: dict[str, dict]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Players with two races at once: in the arena's own counter (one Redis counter, no clock
    skew between processes) a race's (formed, applied) span must end before the next begins."""
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for res in results.values():
        for p in res["players"]:
            spans[p].append((int(res["formed_seq"]), int(res["seq"])))
    bad = []
    for p, ss in spans.items():
        ss.sort()
        if any(a1 >= b0 for (_a0, a1), (b0, _b1) in zip(ss, ss[1:])):
            bad.append((p, ss))
    return bad


async def test_200_bots_in_one_arena_on_two_processes(redis_node, start_server):
    servers = [start_server(redis_node.url, *FLAGS) for _ in range(2)]
    r = aioredis.from_url(redis_node.url)
    admin = await client.connect(servers[0].url, name="organizer")
    watchers = [await client.connect(s.url, name=f"watch{i}") for i, s in enumerate(servers)]
    conns = []
    try:
        for i in range(PLAYERS):
            conns.append(await client.connect(servers[i % 2].url, name=f"b{i}", timeout=DEADLINE))
        await admin.request(
            m.ArenaCreate(arena="two-hundred", game="racing-aces", duration_ms=ARENA_MS, time_limit_s=30)
        )
        for w in watchers:
            await w.request(m.ArenaStandings(arena="two-hundred", top=100, watch=True))
        bots = [ArenaBot(f"b{i}") for i in range(PLAYERS)]
        started = time.monotonic()
        # a few moves a race, then finished; every fifth bot berserks its races
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_arena(
                        c, "two-hundred", GreedyStrategy(max_moves=4), b, delay_ms=50, berserk=i % 5 == 0
                    )
                    for i, (c, b) in enumerate(zip(conns, bots, strict=True))
                )
            ),
            timeout=ARENA_MS / 1000 + 30 + 6 * DEADLINE,
        )
        played_for = time.monotonic() - started

        async def finalized() -> bool:
            got: m.ArenaData = await admin.request(m.ArenaGet(arena="two-hundred"))
            return got.arena.final

        await until(finalized, timeout=3 * DEADLINE, interval=0.2)
        store = ArenaStore(r)
        results = await store.results("two-hundred")
        final = await store.final("two-hundred")
        assert final is not None and len(final) == PLAYERS
        players = [b.player for b in bots]
        counts = sorted(len(b.races) for b in bots)
        print(f"races per player: min {counts[0]}, median {counts[len(counts) // 2]}, max {counts[-1]}")
        assert counts[0] > 0, (counts, servers[0].log_text()[-2000:], servers[1].log_text()[-2000:])
        # every race a bot played was applied, once, with the ranking its players saw
        assert {rp.race for b in bots for rp in b.races} == set(results)
        for b in bots:
            for res in b.races:
                row = next(x for x in results[res.race]["ranking"] if x["player"] == b.player)
                assert row["rank"] == res.rank
        # points: the standings equal the recomputation, and each player's stored race points sum to them
        expected = recomputed(results)
        standing = {row.standing.player: row.standing.points for row in final}
        assert standing == {p: expected.get(p, 0) for p in players}
        per_race: dict[str, int] = defaultdict(int)
        for result in results.values():
            for rp in result["points"]:
                per_race[rp["player"]] += rp["points"]
        assert {p: per_race.get(p, 0) for p in players} == standing
        assert any(res["berserk"] for res in results.values())
        # nobody in two races at once
        assert overlapping(results) == []
        # both processes: the same standings, equal to the final record
        boards = [await w.request(m.ArenaStandings(arena="two-hundred", top=100, around=0)) for w in watchers]
        assert boards[0].count == boards[1].count == PLAYERS
        assert boards[0].top == boards[1].top
        assert [(x.rank, x.player, x.points) for x in boards[0].top] == [
            (row.rank, row.standing.player, row.standing.points) for row in final[:100]
        ]
        # the podium is in the winners' records
        winners = [row for row in final if row.rank <= 3 and row.standing.points > 0]
        assert winners
        for row in winners:
            assert "two-hundred" in [p.arena for p in await store.podiums(row.standing.player)]
        print(f"{len(results)} races by {PLAYERS} players; the bots' part took {played_for:.1f} s")
    finally:
        for c in [admin, *watchers, *conns]:
            await c.close()
        await r.aclose()
