"""The gap fill after a lost pub/sub connection (docs/operations.md): every missed event, in order.

After its pub/sub connection comes back, a process fills each room from the
race's event stream, from the last version it forwarded, holding live events
meanwhile. Two things make that whole:

- the fill reads the stream only once Redis has confirmed the resubscription
  (an event published before that is in the stream, any later one arrives live);
- a drop while a fill is running leads to another fill (the events published
  during the second drop are in no read so far).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import redis.asyncio as aioredis
from test_server_race import make_race
from waiting import until
from wsclient import Raw, player

from server.core import gap_fill as gap
from server.core.room import Room
from server.storage.pubsub import Subscriber

# --- helpers ----------------------------------------------------------------------------------


class HoldingProxy:
    """A TCP proxy to Redis whose client-to-Redis direction can be held back (a slow network,
    a busy Redis): what the client writes meanwhile reaches Redis only on `release()`."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.released = asyncio.Event()
        self.released.set()
        self.upstream = b""  # everything the clients wrote (seen by the proxy, maybe not by Redis)
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/0"

    def hold(self) -> None:
        self.released.clear()

    def release(self) -> None:
        self.released.set()

    async def _serve(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        rr, rw = await asyncio.open_connection("127.0.0.1", self.port)

        async def up() -> None:
            while data := await cr.read(65536):
                self.upstream += data
                await self.released.wait()
                rw.write(data)
            rw.close()

        async def down() -> None:
            while data := await rr.read(65536):
                cw.write(data)
            cw.close()

        for coro in (up(), down()):
            t = asyncio.ensure_future(coro)
            self.tasks.add(t)
            t.add_done_callback(self.tasks.discard)

    async def close(self) -> None:
        for t in list(self.tasks):
            t.cancel()
        if self.server is not None:
            self.server.close()


def dead_url() -> str:
    """A local address nothing listens on: connections are refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"redis://127.0.0.1:{port}/0"


def progress_versions(c: Raw, rid: str) -> list[int]:
    """The versions of the race events `c` received (snapshots, progress, end; no replies)."""
    out = []
    for f in c.frames:
        m = msgpack.unpackb(f)
        if m.get("race") == rid and m.get("t") in ("race", "progress", "end") and "rid" not in m:
            out.append(m["ver"])
    return out


def assert_whole(vers: list[int], since: int, last: int) -> None:
    """Every version from `since` (exclusive) to `last`, once each, in order."""
    got = [v for v in vers if v > since]
    assert got == list(range(since + 1, last + 1)), f"missed, repeated or out of order: {got}"


async def kill_pubsub(r: aioredis.Redis) -> None:
    await r.execute_command("CLIENT", "KILL", "TYPE", "pubsub")


class Mover:
    """One player making legal moves one at a time; `move()` returns the stored version."""

    def __init__(self, c: Raw, rid: str) -> None:
        self.c, self.rid, self.n = c, rid, 0
        self.legal: list[str] = []

    async def first(self) -> None:
        state = await self.c.request("resync", race=self.rid)
        self.n, self.legal = state["you"]["n"], state["you"]["legal"]

    async def move(self) -> int:
        ack = await self.c.request("move", race=self.rid, n=self.n, move=self.legal[0], view=True)
        assert ack["t"] == "ack", ack
        self.n, self.legal = ack["n"], ack["legal"]
        return int(ack["ver"])


async def two_process_race(make_server: Callable[..., Awaitable[Any]]) -> tuple[Any, Any, Raw, Raw, Raw, str]:
    """Process `one` with the mover bob, process `two` with the rival ada and a spectator sam."""
    one = await make_server()
    two = await make_server()
    b = await player(one.ws_url, "bob")
    a = await player(two.ws_url, "ada")
    rid = await make_race(one, [b, a], "fours-up")
    s = await player(two.ws_url, "sam")
    assert (await s.request("spectate", race=rid))["t"] == "race"
    return one, two, a, b, s, rid


# --- the subscriber ---------------------------------------------------------------------------


async def test_a_resubscription_is_confirmed_before_the_reconnect_is_reported(redis_url: str) -> None:
    """`on_reconnect` (which starts the gap fill) comes only once Redis confirmed the
    resubscription: before that, what Redis publishes reaches this process neither live nor
    (read too early) from the stream."""
    events: list[tuple[str, bytes]] = []
    sub = Subscriber(
        redis_url,
        lambda ch, data: events.append(("message", data)),
        lambda: events.append(("reconnect", b"")),
        lambda ch: events.append(("subscribed", ch)),
    )
    proxy = HoldingProxy(int(redis_url.rsplit(":", 1)[1].split("/")[0]))
    r = aioredis.from_url(redis_url)
    await sub.start()
    try:
        sub.subscribe("race:x")
        await until(lambda: ("subscribed", b"race:x") in events, what="the first subscription")
        sub.url = await proxy.start()  # the reconnection goes through the proxy...
        proxy.hold()  # ...which holds back its SUBSCRIBE
        events.clear()
        await kill_pubsub(r)
        await until(lambda: b"SUBSCRIBE" in proxy.upstream, what="the resubscription written")
        assert ("reconnect", b"") not in events, "reported back before Redis has the subscription"
        await r.publish("race:x", b"lost")  # Redis has no subscriber yet: nobody gets it
        proxy.release()
        await until(lambda: ("reconnect", b"") in events, what="the reconnect reported")
        assert events.index(("subscribed", b"race:x")) < events.index(("reconnect", b""))
        await r.publish("race:x", b"live")
        await until(lambda: ("message", b"live") in events, what="a live event after the reconnect")
    finally:
        await sub.close()
        await proxy.close()
        await r.aclose()


# --- the fan-out ------------------------------------------------------------------------------


async def test_a_drop_during_a_gap_fill_leads_to_another_fill(make_server, fast_settings) -> None:
    """The pub/sub connection drops again while a room's gap fill is reading the stream: the
    events published during the second drop are in no read so far, so another fill must
    follow; the rival and the spectator on the other process see every version once, in order."""
    one, two, a, b, s, rid = await two_process_race(make_server)
    svc = two.service
    bus = svc.bus
    r = aioredis.from_url(fast_settings.redis)
    bob = Mover(b, rid)
    await bob.first()
    base = await bob.move()
    await a.wait(lambda m: m.get("t") == "progress" and m["ver"] == base)

    # The second process's reads of this race wait (after Redis answered them) for `gate`.
    gate = asyncio.Event()
    gate.set()
    reads: list[str] = []

    def gated(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(race: str, *args: Any, **kw: Any) -> Any:
            out = await fn(race, *args, **kw)
            if race == rid and not gate.is_set():
                reads.append(fn.__name__)
                await gate.wait()
            return out

        return call

    store = svc.store
    store.load_race = gated(store.load_race)
    store.events_since = gated(store.events_since)
    confirmed: list[bytes] = []
    on_subscribed = bus.on_subscribed

    def seen(ch: bytes) -> None:
        confirmed.append(ch)
        if on_subscribed is not None:
            on_subscribed(ch)

    bus.on_subscribed = seen  # each (re)connection reports its confirmations here
    channel = f"race:{rid}".encode()
    url = bus.url
    try:
        gate.clear()
        await kill_pubsub(r)  # first drop: a gap fill starts, its read is held
        await until(lambda: reads and channel in confirmed, what="the first gap fill reading")
        held = await bob.move()  # live, held back while the fill runs
        bus.url = dead_url()  # the second drop lasts until the URL is back
        await kill_pubsub(r)
        missed = await bob.move()  # published while the second process is not subscribed
        bus.url = url
        await until(lambda: confirmed.count(channel) >= 2, what="the second resubscription")
        gate.set()  # the first fill ends: `missed` is in no read so far
        last = await bob.move()
        assert held + 1 == missed and missed + 1 == last
        for c in (a, s):
            await c.wait(lambda m: m.get("t") == "progress" and m["ver"] >= last)
            await c.request("ping")  # the pong comes after anything else already sent to c
            assert_whole(progress_versions(c, rid), base, last)
    finally:
        gate.set()
        await r.aclose()
        for c in (a, b, s):
            await c.close()


async def test_repeated_pubsub_kills_during_moves_lose_nothing(make_server, fast_settings) -> None:
    """The audit's scenario: the pub/sub connections killed every other move while bob moves;
    ada and the spectator on the other process get every version once, in order, no resync."""
    one, two, a, b, s, rid = await two_process_race(make_server)
    r = aioredis.from_url(fast_settings.redis)
    bob = Mover(b, rid)
    await bob.first()
    base = (await a.request("resync", race=rid))["race"]["ver"]
    try:
        last = base
        for i in range(24):
            if i % 2 == 0:
                await kill_pubsub(r)
            last = await bob.move()
        for c in (a, s):
            await c.wait(lambda m: m.get("t") == "progress" and m["ver"] >= last)
            await c.request("ping")
            assert_whole(progress_versions(c, rid), base, last)
    finally:
        await r.aclose()
        for c in (a, b, s):
            await c.close()


# --- the decisions (no I/O) -------------------------------------------------------------------


def _room() -> Room[Any]:
    return Room(
        rid="r1",
        game="fours-up",
        status="running",
        ver=5,
        seed="s",
        pids=[],
        starts_at=None,
        deadline=None,
        total=0,
        commitment="",
        sent=5,
    )


def test_a_fill_requested_while_one_runs_reads_again_before_it_ends() -> None:
    fills = gap.Fills()
    room = _room()
    assert fills.request(room)  # a subscription confirmed: fill now, holding live events
    assert room.filling == []
    room.filling.append(b"live")
    assert not fills.request(room)  # confirmed again (a second drop) while it runs
    assert fills.read_again(room)  # ...so it reads once more
    assert not fills.read_again(room)
    assert fills.done(room) == [b"live"]  # the held events, for after the missed ones
    assert fills.request(room) and room.filling == []  # the next confirmation starts a new one
    fills.done(room)
    assert not fills.read_again(room)
