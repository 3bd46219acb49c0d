"""Accounts and ratings on a real 3-master Redis Cluster: every script stays in one slot."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from must import must
from redis.asyncio.cluster import ClusterNode, RedisCluster

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from scale_procs import Procs, start_cluster  # noqa: E402

from server.ratings.accounts import AccountError  # noqa: E402
from server.ratings.accounts_store import Accounts  # noqa: E402
from server.ratings.pool import Pool  # noqa: E402
from server.ratings.rating import Entrant, rate_race  # noqa: E402
from server.ratings.store import Ratings  # noqa: E402

GAME = "double-aces-and-kings"
PW = "correct horse battery"


@pytest.fixture
def cluster_nodes(tmp_path):
    procs = Procs()
    try:
        yield start_cluster(procs, tmp_path / "cluster")
    finally:
        procs.cleanup()


async def test_ratings_on_a_cluster(cluster_nodes, hasher):
    r = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in cluster_nodes])
    await r.initialize()
    try:
        accounts = Accounts(r, hasher=hasher)
        players = [f"p{i}" for i in range(8)]
        for p in players:
            await accounts.claim(p, "name" + p, PW)
        with pytest.raises(AccountError):
            await accounts.claim("px", "NAMEP0", PW)
        login = await accounts.login("nameP3", PW, "127.0.0.1")
        assert must(await accounts.session(login.token)).player == "p3"
        await accounts.change_password(login.token, PW, "another password")
        await accounts.logout_everywhere("p3")
        assert await accounts.session(login.token) is None

        ratings = Ratings(r)
        ranks = [4, 1, 2, 2, 8, 6, 5, 7]
        entrants = [Entrant(p, "s" + p, k) for p, k in zip(players, ranks)]
        outs = await asyncio.gather(*(ratings.record_race(GAME, "r1", entrants) for _ in range(3)))
        assert sum(o.applied for o in outs) == 1
        expect = rate_race(entrants, {})
        for p in players:
            assert (await ratings.rating(GAME, p)).mu == pytest.approx(expect[p].mu)
        assert len(await ratings.history(GAME, "p1")) == 1
        board = await ratings.leaderboard(GAME, player="p1")
        assert board["count"] == 0 and board["me"] is None  # everyone is still provisional
        for day in range(1, 10):  # a day apart: no pairing repeats within the fairness window
            await ratings.record_race(GAME, f"d{day}", entrants, ended_ms=day * 86_400_000 * 2)
        board = await ratings.leaderboard(GAME, top=3, player="p4", around=1)
        assert board["count"] == 8
        assert board["top"][0]["player"] == "p1"
        assert {e["player"] for e in board["top"][1:]} == {"p2", "p3"}  # tied all along
        assert [e["rank"] for e in board["top"]] == [1, 2, 2]
        assert board["me"]["player"] == "p4" and board["me"]["rank"] == 8
        pool = Pool(r, lambda: 1_000)
        for p, mu in zip(players, [25.0, 25.5, 30.0, 30.5, 40.0]):
            await pool.join(GAME, p, mu, 2)
        races = await pool.form(GAME)
        assert len(races) == 2 and len(await pool.waiting(GAME)) == 1
    finally:
        await r.aclose()
