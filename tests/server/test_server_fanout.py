"""Race events reach every local member and spectator once each, in version order.

A move's progress goes out to the rivals on the mover's process as soon as
Redis answers the move (its copy on the bus is then skipped); rivals on other
processes get it from the bus. Whatever the mix, each recipient sees every
event of the race once, versions strictly increasing.
"""

from __future__ import annotations

import asyncio
import random

import msgpack
from test_server_race import make_race
from waiting import until
from wsclient import Raw, player


def race_events(c: Raw, rid: str, own: str | None) -> list[dict]:
    """The race events `c` received (snapshots, progress, end; not `start`, which shares the
    version of the running snapshot; no replies)."""
    out = []
    for f in c.frames:
        m = msgpack.unpackb(f)
        if m.get("race") == rid and m.get("t") in ("race", "progress", "end") and "rid" not in m:
            out.append(m)
    return out


async def mover(c: Raw, rid: str, count: int, seed: int) -> int:
    """`count` moves, a few in flight at a time where the next move is known; returns moves made."""
    rng = random.Random(seed)
    state = await c.request("resync", race=rid)
    n, legal = state["you"]["n"], state["you"]["legal"]
    made = 0
    while made < count and legal:
        ack = await c.request("move", race=rid, n=n, move=rng.choice(legal), view=True)
        assert ack["t"] == "ack", ack
        n, legal = ack["n"], ack["legal"]
        made += 1
    return made


def check(events: list[dict], movers: dict[str, int], own: str | None) -> None:
    vers = [e["ver"] for e in events]
    assert vers == sorted(set(vers)), f"versions out of order or repeated: {vers}"
    progress: dict[str, int] = {}
    for e in events:
        if e["t"] == "progress":
            progress[e["player"]] = progress.get(e["player"], 0) + 1
    for pid, made in movers.items():
        if pid != own:
            assert progress.get(pid, 0) == made, (pid, made, progress)
    assert own not in progress


async def _play(movers_: list[Raw], watchers: list[Raw], rid: str, per: int) -> dict[str, int]:
    made = await asyncio.gather(*(mover(c, rid, per, k) for k, c in enumerate(movers_)))
    counts = {c.player: k for c, k in zip(movers_, made)}

    def all_delivered() -> bool:
        """Every recipient has as many progress events of each rival as that rival made moves."""
        for who in movers_ + watchers:
            got = [e["player"] for e in race_events(who, rid, None) if e["t"] == "progress"]
            if any(got.count(pid) < k for pid, k in counts.items() if pid != who.player):
                return False
        return True

    # the last progress events reach everyone (bus or local): wait for them, then check
    await until(all_delivered, what="every progress event delivered")
    for who in movers_ + watchers:
        await who.request("ping")  # the pong comes after anything else already sent to `who`
    return counts


async def test_one_process_local_delivery(make_server):
    app = await make_server()
    a, b, c = [await player(app.ws_url, n) for n in ("ada", "bob", "cy")]
    rid = await make_race(app, [a, b, c], "fours-up")
    s = await player(app.ws_url, "sam")
    assert (await s.request("spectate", race=rid))["t"] == "race"
    counts = await _play([a, b], [c, s], rid, 60)
    for who in (a, b, c, s):
        own = who.player if who in (a, b) else None
        check(race_events(who, rid, own), counts, own)


async def test_two_processes_events_in_order(make_server):
    one = await make_server()
    two = await make_server()
    a = await player(one.ws_url, "ada")
    b = await player(one.ws_url, "bob")
    c = await player(two.ws_url, "cy")
    d = await player(two.ws_url, "dee")  # idle on the second process
    e = await player(one.ws_url, "eve")  # idle on the first
    rid = await make_race(one, [a, b, c, d, e], "fours-up")
    counts = await _play([a, b, c], [d, e], rid, 50)
    for who in (a, b, c, d, e):
        own = who.player if who in (a, b, c) else None
        check(race_events(who, rid, own), counts, own)


async def test_a_seat_noticed_while_a_fill_holds_its_snapshot_is_sent_once(make_server):
    """A join publishes a seat notice on its player's channel, which makes the player's other
    connections here members and sends them the race. When the room has not forwarded that
    version yet (its fill holds it: a loaded machine), the fill brings it, so each connection
    gets it once (it came twice: the notice's copy and the fill's)."""
    app = await make_server()
    svc = app.service
    store = svc.store
    gate = asyncio.Event()
    gate.set()
    events_since = store.events_since

    async def held(race: str, *args, **kw):
        out = await events_since(race, *args, **kw)
        await gate.wait()
        return out

    store.events_since = held
    a = await player(app.ws_url, "ada")
    b = await player(app.ws_url, "bob")
    b2 = await Raw.open(app.ws_url)
    await b2.hello(token=b.token)
    try:
        gate.clear()
        rid = (await a.request("create", game="fours-up", seats=3))["race"]
        await until(lambda: svc.local[rid].filling is not None, what="the new room's fill running")
        assert (await b.request("join", race=rid))["t"] == "race"
        bobs = svc.players[b.player]
        await until(lambda: all(rid in c.races for c in bobs), what="both of bob's connections members")
        gate.set()
        for c in (a, b, b2):
            await c.wait(lambda m: m.get("t") == "race" and m.get("ver") == 2 and "rid" not in m)
            await c.request("ping")  # the pong comes after anything else already sent to c
            versions = [e["ver"] for e in race_events(c, rid, None)]
            assert versions == sorted(set(versions)), versions
    finally:
        gate.set()
        for c in (a, b, b2):
            await c.close()


async def test_a_players_own_progress_reaches_none_of_their_connections(server):
    """docs/protocol.md §1 Versions: the progress of a player's own move goes to none of their
    connections (the one that moved has the ack); another connection of theirs sees the version
    jump at the race's next event, and its resync brings the missed progress."""
    a = await player(server.ws_url, "ada")
    a2 = await Raw.open(server.ws_url)
    await a2.hello(token=a.token)
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "racing-aces")
    await a2.wait("start")
    own = await a.request("move", race=rid, n=0, move="draw")
    assert own["t"] == "ack", own
    await b.wait(lambda m: m.get("t") == "progress" and m["ver"] == own["ver"])
    rival = await b.request("move", race=rid, n=0, move="draw")
    assert rival["t"] == "ack" and rival["ver"] == own["ver"] + 1, rival
    # Events reach a connection in version order: once b's progress is there, a's would be too.
    await a2.wait(lambda m: m.get("t") == "progress" and m["ver"] == rival["ver"])
    assert [e["ver"] for e in race_events(a2, rid, None) if e["t"] == "progress"] == [rival["ver"]]
    state = await a2.request("resync", race=rid, since=own["ver"] - 1)
    missed = [(e["t"], e["ver"], e.get("player")) for e in state["events"]]
    assert missed == [("progress", own["ver"], a.player), ("progress", rival["ver"], b.player)]
    assert state["you"]["n"] == 1
