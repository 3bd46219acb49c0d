"""Recent races on a real 3-master Redis Cluster: each player's list stays in the player's
slot (one script per write), and the account checks split over the nodes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from waiting import until
from wsclient import Raw, player

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from scale_procs import Procs, start_cluster  # noqa: E402

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"


@pytest.fixture
def cluster_url(tmp_path):
    procs = Procs()
    try:
        nodes = start_cluster(procs, tmp_path / "cluster")
        yield "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in nodes)
    finally:
        procs.cleanup()


async def solo_race(c: Raw) -> str:
    snap = await c.request("create", game=GAME, seats=1)
    rid = snap["race"]
    assert (await c.request("ready", race=rid))["t"] == "race"
    await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    assert (await c.request("finish", race=rid))["t"] == "ok"
    await c.wait(lambda f: f.get("t") == "end" and f["race"] == rid)
    return rid


async def test_recent_races_on_a_cluster(cluster_url, make_server):
    app = await make_server(redis=cluster_url, password_hash_passes=1, password_hash_memory_kib=1024)
    url = app.ws_url
    guests = [await player(url, f"g{i}") for i in range(4)]  # players hash to several slots
    claimed = await guests[0].request("claim", name="ada", password="correct horse")
    assert claimed["t"] == "account"
    rids = [await solo_race(c) for c in guests]
    for c, rid in zip(guests, rids):

        async def listed(c: Raw = c) -> list[str] | None:
            races = (await c.request("recent"))["races"]
            return [e["race"] for e in races] or None

        assert await until(listed, what="the race in the recent races") == [rid]
    store = app.service.store
    assert await store.accounts_among(c.player for c in guests) == {guests[0].player}
    # A guest's hello renews its list in the resume's round trip (routed per key).
    again = await Raw.open(url)
    assert (await again.hello(token=guests[1].token))["player"] == guests[1].player
    assert [e["race"] for e in (await again.request("recent"))["races"]] == [rids[1]]
    for c in [*guests, again]:
        await c.close()
