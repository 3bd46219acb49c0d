"""Several server processes on one Redis: reconnects, fan-out, quick-match, dead processes."""

from __future__ import annotations

import signal

import msgpack
import redis.asyncio as aioredis
from redis_replies import raw
from test_server_race import WIN, end_clock_now, play
from waiting import until
from wsclient import Raw, player

from server import storage as S


async def test_reconnect_to_another_process_keeps_everything(server, serve_process):
    other_url, _proc = serve_process()
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    snap = await a.request("create", game=WIN["game"], seats=2, time_limit_s=60)
    rid = snap["race"]
    await b.request("join", race=rid)
    await a.request("ready", race=rid)
    await b.request("ready", race=rid)
    start = await a.wait("start")
    await b.wait("start")
    acks = await play(a, rid, ["draw", "draw", "draw"])
    token = a.token
    await a.close()  # the connection drops mid-race

    a2 = await Raw.open(other_url)  # ...and comes back to another process
    welcome = await a2.hello(token=token)
    assert welcome["player"] == a.player and welcome["name"] == "ada"
    assert welcome["races"] == [rid]
    state = await a2.request("resync", race=rid, since=start["ver"])
    you = state["you"]
    assert you["n"] == 3 and you["status"] == "playing"
    g = S.decode_position(await _stored_position(server, rid, a.player))
    assert you["view"] == g.view_text() and you["legal"] == g.legal_moves()
    assert state["race"]["deadline"] == start["deadline"]  # the clock kept running
    assert state["race"]["starts_at"] == start["starts_at"]
    assert [e["n"] for e in state["events"] if e["t"] == "progress"] == [1, 2, 3]
    # moves continue where they stopped; the rival on the first process sees them
    ack = await a2.request("move", race=rid, n=3, move="draw")
    assert ack["t"] == "ack" and ack["n"] == 4 and ack["ver"] == acks[-1]["ver"] + 1
    prog = await b.wait(lambda m: m.get("t") == "progress" and m["n"] == 4)
    assert prog["player"] == a.player
    # and the other way round: b's moves reach a2 through the other process
    await play(b, rid, ["draw"])
    await a2.wait(lambda m: m.get("t") == "progress" and m["player"] == b.player)
    # the end reaches both processes
    await a2.request("finish", race=rid)
    await b.request("finish", race=rid)
    end_a = await a2.wait("end")
    end_b = await b.wait("end")
    assert end_a == end_b and end_a["seed"]
    await a2.close()
    await b.close()


async def _stored_position(app, rid: str, pid: str) -> bytes:
    """The player's current stored position: the snapshot, then the log entries after it."""
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        h = await r.hgetall(S.player_key(rid, pid))
        since = await r.lrange(S.log_key(rid, pid), int(h[b"pn"]), -1)
    finally:
        await r.aclose()
    return S.encode_position(S.replay(raw(h[b"pos"]), [raw(entry) for entry in since]))


async def test_deadline_fires_when_the_starting_process_died(server, serve_process):
    """The race was started (and timed) by a process that is killed; another ends it."""
    other_url, proc = serve_process()
    a = await player(other_url, "ada")
    b = await player(other_url, "bob")
    snap = await a.request("create", game="fours-up", seats=2, time_limit_s=60)
    rid = snap["race"]
    r = aioredis.Redis.from_url(server.settings.redis)
    await b.request("join", race=rid)
    await a.request("ready", race=rid)
    await b.request("ready", race=rid)
    await a.wait("start")
    await play(a, rid, ["draw"])  # on the 60 s clock: no stall makes it late
    proc.send_signal(signal.SIGKILL)  # no goodbye: the in-process server must notice the deadline
    proc.wait(5)
    # The time is up only now, after the kill: the dead process cannot have ended the race.
    await end_clock_now(server.settings.redis, rid)

    async def finished() -> bool:
        return await r.hget(S.race_key(rid), "status") == b"finished"

    await until(finished, interval=0.05, what="the race ended by the surviving process")

    async def untimed() -> bool:  # the timer goes last, after the end's follow-up
        return await r.zscore(S.TIMERS, rid) is None

    await until(untimed, interval=0.05, what="the ended race's timer removed")
    # everyone can read the result on the surviving process
    c = await player(server.ws_url, "cyd")
    rep = await c.request("replay", race=rid)
    assert rep["t"] == "replay" and [e["status"] for e in rep["ranking"]] == ["timeout", "timeout"]
    assert rep["ranking"][0]["player"] == a.player  # same cards home: the one who played first
    await r.aclose()
    await c.close()


async def test_quick_match_pairs_players_on_two_processes(server, serve_process):
    other_url, _proc = serve_process()
    a = await player(server.ws_url, "ada")
    b = await player(other_url, "bob")
    q = await a.request("quick", game="fours-up")
    assert q["t"] == "queued" and q["seats"] == 2
    q = await b.request("quick", game="fours-up")
    assert q["t"] == "queued"
    sa = await a.wait(lambda m: m.get("t") == "race" and m["status"] in ("countdown", "running"))
    sb = await b.wait(lambda m: m.get("t") == "race" and m["status"] in ("countdown", "running"))
    assert sa["race"] == sb["race"] and sa["host"] == "" and not sa["private"]
    assert {p["player"] for p in sa["players"]} == {a.player, b.player}
    st_a = await a.wait("start")
    st_b = await b.wait("start")
    assert st_a["view"] == st_b["view"]
    rid = sa["race"]
    await play(a, rid, ["draw"])
    await b.wait(lambda m: m.get("t") == "progress" and m["player"] == a.player)
    # unqueue: a third player queues and leaves; nobody is paired with them later
    c = await player(server.ws_url, "cyd")
    await c.request("quick", game="fours-up")
    assert (await c.request("unqueue", game="fours-up"))["t"] == "ok"
    d = await player(other_url, "dan")
    await d.request("quick", game="fours-up")
    # the next player to queue is paired with dan: so dan was still waiting, not paired with cyd
    e = await player(server.ws_url, "eve")
    await e.request("quick", game="fours-up")
    sd = await d.wait(lambda m: m.get("t") == "race" and m["status"] in ("countdown", "running"))
    assert {p["player"] for p in sd["players"]} == {d.player, e.player}
    assert not [m for m in map(msgpack.unpackb, d.frames) if m["t"] == "race" and m["race"] != sd["race"]]
    for x in (a, b, c, d, e):
        await x.close()


async def test_a_start_published_before_the_room_subscribes_still_arrives(make_server, fast_settings):
    """Seated by another process's quick-match, a process loads the race, then subscribes to
    its channel; the start can be published in between (a slow process, a busy Redis). The
    player must still get it."""
    pairer = await make_server()
    late = await make_server()
    assert late.service is not None
    bus = late.service.bus
    subscribe = bus.subscribe
    r = aioredis.from_url(fast_settings.redis)
    delayed: list[str] = []

    def subscribe_after_the_start(*channels: str) -> None:
        # The race channel's SUBSCRIBE reaches Redis only once the race has started.
        for ch in channels:
            if not ch.startswith("race:"):
                subscribe(ch)
                continue
            delayed.append(ch)

            async def later(ch: str = ch) -> None:
                async def started() -> bool:
                    return await r.hget(S.race_key(ch[len("race:") :]), "status") == b"running"

                await until(started, what="the race started")
                subscribe(ch)

            late.service.spawn(later())

    bus.subscribe = subscribe_after_the_start  # type: ignore[method-assign]
    try:
        b = await player(late.ws_url, "bob")
        a = await player(pairer.ws_url, "ada")
        assert (await b.request("quick", game="fours-up"))["t"] == "queued"
        await a.request("quick", game="fours-up")
        st_a = await a.wait("start")
        st_b = await b.wait("start")
        assert st_a["view"] == st_b["view"] and delayed
        await a.close()
        await b.close()
    finally:
        await r.aclose()
