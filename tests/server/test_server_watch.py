"""Watching: the race list, spectating (delayed boards), private races, lobby events."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgpack
import redis.asyncio as aioredis
from must import must_be
from test_server_race import make_race, play
from waiting import until
from wsclient import player

from protocol import rules
from server import storage as S


async def test_race_list_and_spectating(make_server):
    app = await make_server(spectator_delay_ms=300, spectator_flush_ms=50)
    a = await player(app.ws_url, "ada")
    b = await player(app.ws_url, "bob")
    eve = await player(app.ws_url, "eve")
    private = (await a.request("create", game="fours-up", private=True))["race"]
    # a public lobby and a running race
    lobby = (await b.request("create", game="fours-up", seats=3))["race"]
    c = await player(app.ws_url, "cyd")
    d = await player(app.ws_url, "dan")
    rid = await make_race(app, [c, d], "racing-aces")
    listing = await eve.request("races")
    ids = [x["race"] for x in listing["races"]]
    assert rid in ids and lobby in ids and private not in ids
    assert ids.index(rid) < ids.index(lobby)  # newest first
    entry = next(x for x in listing["races"] if x["race"] == rid)
    assert entry["status"] == "running" and entry["game"] == "racing-aces" and entry["total"] == 156
    assert [p["name"] for p in entry["players"]] == ["cyd", "dan"]
    only = await eve.request("races", game="fours-up")
    assert [x["race"] for x in only["races"]] == [lobby]
    # spectate: errors first
    assert (await eve.request("spectate", race=private))["code"] == "private-race"
    assert (await c.request("spectate", race=rid))["code"] == "is-player"
    snap = await eve.request("spectate", race=rid)
    assert snap["t"] == "race" and snap["status"] == "running" and snap["seed"] is None
    t_move = int(time.time() * 1000)
    await play(c, rid, ["draw", "draw"])
    prog = await eve.wait(lambda m: m.get("t") == "progress" and m["n"] == 2)  # progress at once
    assert prog["player"] == c.player
    # cyd's drawn cards are ones dan, still playing, has not seen: ?? to spectators (a second
    # identity of dan's would read his coming stock cards; test_core_spectator_boards.py)
    early = await eve.wait(lambda m: m.get("t") == "boards" and any(x["n"] == 2 for x in m["boards"]))
    waste = next(x for x in early["boards"] if x["player"] == c.player)["view"].split()[-1]
    assert waste.startswith("w:") and "??" in waste, waste
    # dan draws the same cards (the same deal): every card on cyd's board is one dan has seen
    await play(d, rid, ["draw", "draw"])
    boards = await eve.wait(lambda m: m.get("t") == "boards" and all(x["n"] == 2 for x in m["boards"]))
    received = int(time.time() * 1000)
    assert received - t_move >= 300 - 20  # delayed by SPECTATOR_DELAY
    assert boards["at"] <= received - 300 + 50
    g = rules.deal("racing-aces", app.service.local[rid].seed)
    g.play("draw")
    g.play("draw")
    mine = next(x for x in boards["boards"] if x["player"] == c.player)
    assert mine["view"] == g.view_text()
    listing = await a.request("races")
    assert next(x for x in listing["races"] if x["race"] == rid)["spectators"] == 1
    assert (await eve.request("unspectate", race=rid))["t"] == "ok"
    listing = await a.request("races")
    assert next(x for x in listing["races"] if x["race"] == rid)["spectators"] == 0
    for x in (a, b, c, d, eve):
        await x.close()


async def test_lobby_events_reach_members_and_spectators(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    eve = await player(server.ws_url, "eve")
    rid = (await a.request("create", game="fours-up", seats=3))["race"]
    await eve.request("spectate", race=rid)
    await b.request("join", race=rid)
    ev = await a.wait(lambda m: m.get("t") == "race" and len(m["players"]) == 2)
    assert ev["ver"] == 2
    await eve.wait(lambda m: m.get("t") == "race" and m["ver"] == 2 and "rid" not in m)
    left = await b.request("leave", race=rid)
    assert [p["player"] for p in left["players"]] == [a.player]
    await a.wait(lambda m: m.get("t") == "race" and m["ver"] == 3)
    # the host starts alone once ready
    assert (await a.request("start", race=rid))["code"] == "not-ready"
    await a.request("ready", race=rid)
    st = await a.request("start", race=rid)
    assert st["status"] == "countdown" and st["seats"] == 1
    await a.wait("start")
    await eve.wait(lambda m: m.get("t") == "race" and m["status"] == "running")
    for x in (a, b, eve):
        await x.close()


async def test_welcome_lists_seats_and_resync_gap_fill(server):
    a = await player(server.ws_url, "ada")
    rid = (await a.request("create", game="fours-up", seats=2))["race"]
    token = a.token
    await a.close()
    a2 = await player(server.ws_url, "x")
    await a2.close()
    from wsclient import Raw

    a3 = await Raw.open(server.ws_url)
    w = await a3.hello(token=token, name="ada2")
    assert w["races"] == [rid] and w["name"] == "ada2"
    b = await player(server.ws_url, "bob")
    await b.request("join", race=rid)
    state = await a3.request("resync", race=rid, since=1)
    assert state["race"]["ver"] == 2 and [e["ver"] for e in state["events"]] == [2]
    assert state.get("you") is None  # not started: no board yet
    await a3.close()
    await b.close()


async def test_spectator_boards_show_nothing_newer_than_their_at(make_server):
    """Each `boards` shows the race as it was at its `at`: no move made after it,
    while both players keep moving through many samples."""
    app = await make_server(spectator_delay_ms=100, spectator_flush_ms=10)
    c = await player(app.ws_url, "cyd")
    d = await player(app.ws_url, "dan")
    eve = await player(app.ws_url, "eve")
    rid = await make_race(app, [c, d], "racing-aces")
    await eve.request("spectate", race=rid)
    acked: dict[tuple[str, int], int] = {}  # (player, n) -> the move's time

    def sampled(who: Any, n: int) -> bool:
        """A `boards` (unread yet) shows `who` at `n` moves or more."""
        return any(
            m.get("t") == "boards" and any(x["player"] == who.player and x["n"] >= n for x in m["boards"])
            for m in eve.unread
        )

    async def keep_drawing(who) -> int:
        n = 0
        for _batch in range(20):
            for ack in await play(who, rid, ["draw"] * 5, start_n=n):
                acked[(who.player, ack["n"])] = ack["at"]
            n += 5
            # Paced by the samples: moves made faster than the boards are sampled (a loaded
            # machine's starved timer) left as few as two samples in flight to check.
            await until(lambda: sampled(who, n), what=f"a sample of {who.player} at {n} moves")  # noqa: B023
        return n

    final = await asyncio.gather(keep_drawing(c), keep_drawing(d))
    last = {(c.player, final[0]), (d.player, final[1])}
    shown = 0
    while True:
        b = await eve.wait("boards")
        for board in b["boards"]:
            if board["n"] > 0:
                assert acked[(board["player"], board["n"])] <= b["at"], (board, b["at"])
                shown += 1
        if {(x["player"], x["n"]) for x in b["boards"]} == last:
            break
    assert shown >= 4
    for x in (c, d, eve):
        await x.close()


async def test_a_spectator_who_takes_a_seat_stops_watching(make_server):
    """Watching a race, then joining it, must not keep the boards coming: every board
    of the same deal shows the joiner's own stock and face-down cards. Neither on the
    joining connection, nor on the player's other connections, here or on another
    process (which learns of the join from the race's snapshot on the bus)."""
    fast = {"spectator_delay_ms": 0, "spectator_flush_ms": 20}
    here = await make_server(**fast)
    there = await make_server(**fast)
    from wsclient import Raw

    a = await player(here.ws_url, "ada")
    b = await player(here.ws_url, "bob")
    b_there = await Raw.open(there.ws_url)
    await b_there.hello(token=b.token)
    eve = await player(there.ws_url, "eve")
    rid = (await a.request("create", game="racing-aces", seats=2, time_limit_s=60))["race"]
    for watcher in (b, b_there, eve):
        assert (await watcher.request("spectate", race=rid))["t"] == "race"
    assert (await b.request("join", race=rid))["t"] == "race"
    for p in (a, b):
        assert (await p.request("ready", race=rid))["t"] == "race"
    for p in (a, b):
        await p.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    acks = await play(a, rid, ["draw", "draw", "draw"])
    # eve, a true spectator on the other process, sees the boards after all three draws...
    await eve.wait(lambda m: m.get("t") == "boards" and any(x["n"] == 3 for x in m["boards"]))
    # ...and bob's connections, by then, have had every event of it
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == acks[-1]["ver"])
    for conn in (b, b_there):
        got = [msgpack.unpackb(f) for f in conn.frames]
        assert not [x for x in got if x.get("t") == "boards"], "a seated player got the boards"
        versions = [x["ver"] for x in got if x.get("t") in ("progress", "race") and "rid" not in x]
        assert len(versions) == len(set(versions)), f"events twice: {versions}"
    assert app_spectators(here, rid) == 0 and app_spectators(there, rid) == 1
    # his other connection watches no more; the race's spectators are eve alone
    assert rid not in next(iter(there.service.players[b.player])).spectating

    async def counted() -> int:
        listing = await eve.request("races")
        return next(x for x in listing["races"] if x["race"] == rid)["spectators"]

    await until(lambda: _is(counted(), 1), what="bob's two watchings counted out")
    for x in (a, b, b_there, eve):
        await x.close()


async def _is(value, expected) -> bool:
    return await value == expected


def app_spectators(app, rid: str) -> int:
    room = app.service.local.get(rid)
    return len(room.spectators) if room is not None else 0


async def test_an_event_between_the_streams_two_reads_is_not_taken_for_a_loss(server, monkeypatch):
    """`events_since` reads the stream, then (finding nothing new) the race's version. An event
    landing between the two is in the stream by then: it is returned, not reported as lost
    (which sent resyncs and gap fills to the snapshot)."""
    a, b = await player(server.ws_url, "ada"), await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "fours-up")
    store = server.service.store
    r = aioredis.Redis.from_url(server.settings.redis)
    try:
        ver = int(must_be(await r.hget(S.race_key(rid), "ver"), bytes))
    finally:
        await r.aclose()
    real = store.redis.hget

    async def a_move_lands_first(*args):
        monkeypatch.setattr(store.redis, "hget", real)  # once
        await play(a, rid, ["draw"])
        return await real(*args)

    monkeypatch.setattr(store.redis, "hget", a_move_lands_first)
    got = await store.events_since(rid, ver)
    assert got is not None and [msgpack.unpackb(f)["ver"] for f in got] == [ver + 1]
    for x in (a, b):
        await x.close()


async def test_a_long_log_is_caught_up_over_several_samples(make_server, monkeypatch):
    """A spectator's first sample of a race replays each log from the deal, a few moves per
    flush (spectators.REPLAY_PER_SAMPLE): the board of a player whose log is still being read
    is left out, then shown at the player's true count."""
    from server.core import spectators

    monkeypatch.setattr(spectators, "REPLAY_PER_SAMPLE", 2)
    app = await make_server(spectator_delay_ms=0, spectator_flush_ms=20)
    c = await player(app.ws_url, "cyd")
    eve = await player(app.ws_url, "eve")
    rid = await make_race(app, [c], "racing-aces")
    await play(c, rid, ["draw"] * 9)
    await eve.request("spectate", race=rid)
    frames = []

    def full(msg) -> bool:
        if msg.get("t") != "boards":
            return False
        frames.append(msg)
        return any(b["n"] == 9 for b in msg["boards"])

    await eve.wait(full)
    assert all(b["n"] == 9 for f in frames for b in f["boards"]), frames  # never a partial board
    assert any(not f["boards"] for f in frames), frames  # left out while its log was being read


async def test_a_spectator_leaving_a_race_whose_keys_expired_leaves_no_key_behind(make_server):
    """The spectator count is a field of the race's hash: counting a spectator out of a race
    whose keys expired meanwhile (a finished race watched past its TTL) must not create a
    hash holding that field alone, a key with no TTL that every later look-up of the id reads
    as a broken race."""
    app = await make_server()
    c = await player(app.ws_url, "cyd")
    d = await player(app.ws_url, "dan")
    eve = await player(app.ws_url, "eve")
    rid = await make_race(app, [c, d], "fours-up")
    assert (await eve.request("spectate", race=rid))["t"] == "race"
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        await r.delete(S.keys.race_key(rid))  # as its TTL would
        assert (await eve.request("unspectate", race=rid))["t"] == "ok"
        assert not await r.exists(S.keys.race_key(rid))
        assert (await eve.request("spectate", race=rid))["code"] == "no-such-race"
        # Such a hash left by a server before this fix is no race either (it was `internal`).
        await r.hset(S.keys.race_key(rid), "spectators", -1)
        assert (await eve.request("spectate", race=rid))["code"] == "no-such-race"
    finally:
        await r.aclose()


async def test_a_spectator_gets_the_snapshot_before_any_live_event(server):
    """docs/protocol.md §4 `spectate`: the reply (the snapshot), then the live events. A move
    made while the spectate is still being counted in Redis reaches the new spectator after
    its snapshot, never before it."""
    from injected import slow_first

    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    eve = await player(server.ws_url, "eve")
    rid = await make_race(server, [a, b], "racing-aces")
    reached, go_on = slow_first(server.service.store, "spectators")
    rid_ = next(eve.rids)
    await eve.send({"t": "spectate", "rid": rid_, "race": rid})
    await asyncio.wait_for(reached.wait(), 30)  # eve is in the room, her count not yet in Redis
    ack = await a.request("move", race=rid, n=0, move="draw")
    assert ack["t"] == "ack", ack
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == ack["ver"])
    go_on.set()
    reply = await eve.wait(lambda m: m.get("rid") == rid_)
    assert reply["t"] == "race", reply
    await eve.request("ping")  # every frame sent to eve before the pong is in
    seen = [msgpack.unpackb(f) for f in eve.frames]
    mine = [(x["t"], x.get("ver")) for x in seen if x.get("race") == rid]
    assert mine[0] == ("race", reply["ver"]), mine
    assert all(v is None or v > reply["ver"] for _t, v in mine[1:]), mine


async def test_spectating_a_finished_race_takes_no_slot(make_server):
    """docs/protocol.md §4: a race that ends frees its spectating slot; one already over when
    spectated gets its snapshot and takes none (nor a room of this process)."""
    app = await make_server(max_spectating=1)
    a = await player(app.ws_url, "ada")
    b = await player(app.ws_url, "bob")
    eve = await player(app.ws_url, "eve")
    rid = await make_race(app, [a, b], "racing-aces")
    for c in (a, b):
        assert (await c.request("finish", race=rid))["t"] == "ok"
    await a.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    seen = await eve.request("spectate", race=rid)
    assert (seen["t"], seen["status"]) == ("race", "finished"), seen
    assert rid not in app.service.local  # nothing of it held here for eve
    lobby = (await a.request("create", game="racing-aces"))["race"]
    watched = await eve.request("spectate", race=lobby)
    assert (watched["t"], watched["race"]) == ("race", lobby), watched
    assert (await eve.request("unspectate", race=rid))["t"] == "ok"
