"""A first end-to-end run: two players, a race, moves, progress, finish, end."""

from __future__ import annotations

from wsclient import player

from protocol import rules


async def test_two_players_race(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    snap = await a.request("create", game="fours-up", seats=2, time_limit_s=60)
    assert snap["t"] == "race" and snap["status"] == "lobby", snap
    rid = snap["race"]
    j = await b.request("join", race=rid)
    assert [p["player"] for p in j["players"]] == [a.player, b.player]
    await a.request("ready", race=rid)
    r = await b.request("ready", race=rid)
    assert r["status"] == "countdown"
    sa = await a.wait("start")
    sb = await b.wait("start")
    assert sa["view"] == sb["view"] and sa.get("n", 0) == 0
    ack = await a.request("move", race=rid, n=0, move="draw")
    assert ack["t"] == "ack" and ack["n"] == 1 and ack["revealed"][0][0] == "w", ack
    prog = await b.wait("progress")
    assert prog["player"] == a.player and prog["n"] == 1
    bad = await a.request("move", race=rid, n=1, move="t0>t0")
    assert bad["code"] == "illegal-move", bad
    assert (await a.request("finish", race=rid))["t"] == "ok"
    assert (await b.request("finish", race=rid))["t"] == "ok"
    end = await a.wait("end")
    assert rules.seed_commitment(end["seed"]) == sa["commitment"]
    # same cards home (the 8 fours, dealt home): the player who played ranks above the one who did nothing
    assert [e["player"] for e in end["ranking"]] == [a.player, b.player]
    rep = await b.request("replay", race=rid)
    assert rep["players"][0]["moves"][0][0] == "draw"
    await a.close()
    await b.close()
