"""A reply read from Redis and the live events of its race, in one well-defined order
(docs/protocol.md §1 Versions, §3 `resync`, §4 `spectate`): the events sent before the
reply are at or below its version; after it, every version above it comes, from its version
+ 1 on, whatever the process forwarded while the reply was being read, and the events at or
below it that the process had not forwarded yet still come (a client ignores them; one that
asked for the reply for another part of its screen needs them). And a quick-match race is
on the public list before its players are told of it (§3 `quick`).

Each test holds one step back at the moment that used to let the two overtake each other:
a read kept waiting while a move is forwarded, or the bus of a process held while a read
sees a newer version than its room forwarded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgpack
from injected import after_first, read_then_wait
from test_server_race import make_race
from waiting import until
from wsclient import Raw, player

RACE_EVENTS = ("race", "progress", "end", "start")


def hold_bus(app: Any) -> Callable[[], None]:
    """The process's bus is slow: the race events it receives are held (in order) until the
    function returned is called, which forwards them. Redis has them already."""
    fanout = app.service.fanout
    real = fanout.forward
    held: list[tuple[Any, bytes]] = []
    holding = True

    def forward(room: Any, data: bytes) -> None:
        if holding:
            held.append((room, data))
        else:
            real(room, data)

    def release() -> None:
        nonlocal holding
        holding = False
        fanout.forward = real
        for room, data in held:
            real(room, data)

    fanout.forward = forward
    return release


def seen(c: Raw, rid: str) -> list[tuple[str, int, Any]]:
    """What `c` got of race `rid`, in arrival order: (type, version, request id); a `state`'s
    version is its snapshot's, or its last event's when newer."""
    out = []
    for f in c.frames:
        x = msgpack.unpackb(f)
        if x.get("t") == "state" and x["race"]["race"] == rid:
            ver = max([x["race"]["ver"], *(e["ver"] for e in x.get("events") or ())])
            out.append(("state", ver, x.get("rid")))
        elif x.get("t") in RACE_EVENTS and x.get("race") == rid and x.get("ver"):
            out.append((x["t"], x["ver"], x.get("rid")))
    return out


def assert_follows(
    got: list[tuple[str, int, Any]], reply: tuple[str, int, Any], kept: tuple[int, ...] = ()
) -> None:
    """Before the reply, nothing above its version; after it, the versions above it from its
    version + 1, in order; and `kept`, versions the reply holds, come after it too (not dropped)."""
    at = got.index(reply)
    ver = reply[1]
    assert all(v <= ver for _t, v, _r in got[:at]), got
    after = [v for _t, v, _r in got[at + 1 :]]
    newer = [v for v in after if v > ver]
    assert newer and newer[0] == ver + 1 and newer == sorted(newer), got
    assert all(v in after for v in kept), got


async def move(c: Raw, rid: str, n: int) -> int:
    ack = await c.request("move", race=rid, n=n, move="draw")
    assert ack["t"] == "ack", ack
    return ack["ver"]


async def test_a_spectator_read_behind_the_room_gets_no_version_jump(server):
    """eve's snapshot is read, then a move is forwarded here before she is in the room:
    her first live event must still follow her snapshot's version."""
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    eve = await player(server.ws_url, "eve")
    rid = await make_race(server, [a, b], "racing-aces")
    read, go_on = read_then_wait(server.service.store, "load_race")
    rid_ = next(eve.rids)
    await eve.send({"t": "spectate", "rid": rid_, "race": rid})
    await asyncio.wait_for(read.wait(), 30)  # eve's snapshot is read, she is not in the room yet
    ver = await move(a, rid, 0)
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == ver)  # forwarded here
    go_on.set()
    reply = await eve.wait(lambda m: m.get("rid") == rid_)
    assert reply["t"] == "race", reply
    last = await move(a, rid, 1)
    await eve.wait(lambda m: m.get("t") == "progress" and m["ver"] == last)
    assert_follows(seen(eve, rid), ("race", reply["ver"], rid_))


async def test_a_spectator_read_ahead_of_the_room_misses_nothing_after_it(make_server):
    """eve's snapshot is read on a process whose bus has not brought the latest move yet:
    that move's event, once it comes, follows the snapshot (which holds it already), and every
    event after it comes in order."""
    one = await make_server()
    two = await make_server()
    a = await player(one.ws_url, "ada")
    b = await player(two.ws_url, "bob")  # the race's room on process two
    eve = await player(two.ws_url, "eve")
    rid = await make_race(one, [a, b], "racing-aces")
    release = hold_bus(two)
    try:
        ver = await move(a, rid, 0)  # in Redis; process two has not forwarded it
        counted = after_first(two.service.store, "spectators")
        rid_ = next(eve.rids)
        await eve.send({"t": "spectate", "rid": rid_, "race": rid})
        await asyncio.wait_for(counted.wait(), 30)  # eve is in the room, her snapshot read
        assert two.service.local[rid].sent < ver
    finally:
        release()
    reply = await eve.wait(lambda m: m.get("rid") == rid_)
    assert reply["t"] == "race" and reply["ver"] >= ver, reply
    last = await move(a, rid, 1)
    await eve.wait(lambda m: m.get("t") == "progress" and m["ver"] == last)
    assert_follows(seen(eve, rid), ("race", reply["ver"], rid_), kept=(ver,))


async def test_a_resync_reply_is_not_overtaken_by_a_live_event(server):
    """bob's `resync` reads the race, then a move is forwarded to him while the rest of his
    reply is read: the event must not go out before a reply older than it."""
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "racing-aces")
    await move(a, rid, 0)
    read, go_on = read_then_wait(server.service.store, "load_race")
    rid_ = next(b.rids)
    await b.send({"t": "resync", "rid": rid_, "race": rid})
    await asyncio.wait_for(read.wait(), 30)  # the snapshot is read; `you` is not yet
    ver = await move(a, rid, 1)
    await until(lambda: server.service.local[rid].sent >= ver, what="the move forwarded to bob")
    go_on.set()
    reply = await b.wait(lambda m: m.get("rid") == rid_)
    assert reply["t"] == "state", reply
    last = await move(a, rid, 2)
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == last)
    got = seen(b, rid)
    assert_follows(got, next(x for x in got if x[2] == rid_))


async def test_a_resync_read_ahead_of_the_room_drops_no_event(make_server):
    """bob's `resync` (with `since`) reads events his process's bus has not brought yet:
    once they come they still reach him, after the reply (a client that asked for the state
    for another part of its screen, as the web client's arena panel does, needs them), and
    every event after it comes in order."""
    one = await make_server()
    two = await make_server()
    a = await player(one.ws_url, "ada")
    b = await player(two.ws_url, "bob")
    rid = await make_race(one, [a, b], "racing-aces")
    since = await move(a, rid, 0)
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == since)
    release = hold_bus(two)
    try:
        ver = await move(a, rid, 1)  # in Redis; process two has not forwarded it
        read = after_first(two.service.store, "events_since")
        rid_ = next(b.rids)
        await b.send({"t": "resync", "rid": rid_, "race": rid, "since": since})
        await asyncio.wait_for(read.wait(), 30)  # the reply's last read is done
        assert two.service.local[rid].sent < ver
    finally:
        release()
    reply = await b.wait(lambda m: m.get("rid") == rid_)
    assert reply["t"] == "state" and reply["race"]["ver"] >= ver, reply
    last = await move(a, rid, 2)
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == last)
    got = seen(b, rid)
    assert_follows(got, next(x for x in got if x[2] == rid_), kept=(ver,))


async def test_a_quick_match_race_is_listed_before_its_players_are_told(server):
    """A matched player's client that lists the races as soon as it is told of its own finds
    it there: the race's listing (a slow write here) comes before its players' notices."""
    store = server.service.store
    real_add_seat, real_index = store.add_seat, store.index
    noticed: set[str] = set()
    listed = asyncio.Event()

    async def add_seat(pid: str, race: str) -> None:
        await real_add_seat(pid, race)
        noticed.add(race)

    async def index(race: str, created: int | None) -> None:
        if created is not None and race in noticed:
            await listed.wait()  # slow to list: its players were told already
        await real_index(race, created)

    store.add_seat, store.index = add_seat, index
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    try:
        assert (await a.request("quick", game="fours-up"))["t"] == "queued"
        assert (await b.request("quick", game="fours-up"))["t"] == "queued"
        snap = await a.wait(lambda m: m.get("t") == "race" and "rid" not in m)
        races = await a.request("races")
    finally:
        listed.set()
    assert snap["race"] in [x["race"] for x in races["races"]], races
