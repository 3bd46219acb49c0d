"""The daily challenge on a real 3-master Redis Cluster: every script stays in one slot."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from scale_procs import Procs, start_cluster  # noqa: E402

from client.library import ServerError, connect  # noqa: E402
from protocol import messages as m  # noqa: E402
from server.daily import Daily, Result, days  # noqa: E402
from server.storage.cluster import cold_client  # noqa: E402

GAME = "fours-up"
DAY = "2025-03-14"
T0 = days.opens_at(DAY)


@pytest.fixture
def cluster_url(tmp_path):
    procs = Procs()
    try:
        nodes = start_cluster(procs, tmp_path / "cluster")
        yield "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in nodes)
    finally:
        procs.cleanup()


async def test_daily_service_on_a_cluster(cluster_url):
    r = cold_client(cluster_url)
    await (
        r.initialize()
    )  # as Store.start does (its ping): a cold client raced by 10 first calls can fail in redis-py
    now = {"ms": T0 + 3600_000}
    daily = Daily(r, clock=lambda: now["ms"])

    async def create(deal, player, limit):
        return "race-" + player

    try:
        atts = await asyncio.gather(*(daily.start(GAME, "ada", create) for _ in range(10)))
        assert {a.race for a in atts} == {"race-ada"}
        for i, p in enumerate(["ada", "bob", "cat"]):
            att = await daily.start(GAME, p, create)
            res = Result("finished", False, 20 + i, 104, 5, None, 100)
            await daily.record(GAME, DAY, p, p, att.race, res, [["draw", T0 + 1]], T0)
        board = await daily.leaderboard(GAME, player="ada", around=1)
        assert [e["player"] for e in board["top"]] == ["cat", "bob", "ada"]
        assert board["me"]["rank"] == 3
        hist = await daily.history("ada", GAME)
        assert hist["played"] == 1 and hist["days"][0]["rank"] == 3
        now["ms"] = T0 + days.DAY_MS + daily.finalize_grace_ms
        doc = await daily.replay(GAME, DAY)
        assert [p["player"] for p in doc["players"]] == ["cat", "bob", "ada"]
    finally:
        await r.aclose()


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
async def test_daily_over_the_wire_on_a_cluster(cluster_url, make_server):
    app = await make_server(redis=cluster_url)
    async with connect(app.ws_url, name="ada") as ada:
        snap = await ada.request(m.DailyStart(game=GAME))
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.move(snap.race, "draw")
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        with pytest.raises(ServerError) as e:
            await ada.request(m.DailyStart(game=GAME))
        assert e.value.code == "daily-done"
        board = await ada.request(m.Leaderboard(game=GAME))
        assert board.me.race == snap.race and board.me.moves == 1
        hist = await ada.request(m.History(game=GAME))
        assert hist.played == 1 and hist.days[0].rank == 1
