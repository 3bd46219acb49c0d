"""Abuse: message credits, connections per address (and behind a proxy), frame size, races per player;
a fuzz of 2,000+ random and mutated frames over a real socket (20,000+ with
--hypothesis-profile=deep, tests/depth.py)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

import msgpack
import pytest
import redis
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scale_play import seated_race
from waiting import DEADLINE, wait_until
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as sync_connect

import client
from protocol import messages as m
from protocol import rules
from server import storage as S


class Raw:
    """A bare WebSocket + MessagePack client (sends anything; records the close code)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.rids = itertools.count(1)

    @classmethod
    async def open(cls, url: str, headers: dict[str, str] | None = None) -> Raw:
        return cls(await ws_connect(url, compression=None, additional_headers=headers, ping_interval=None))

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        rid = next(self.rids)
        await self.ws.send(msgpack.packb({"t": t, "rid": rid, **fields}))
        while True:
            msg = msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), DEADLINE))
            if msg.get("rid") == rid:
                return msg

    async def closed_with(self, timeout: float = DEADLINE) -> int | None:
        try:
            async with asyncio.timeout(timeout):
                async for _ in self.ws:
                    pass
        except ConnectionClosed:
            pass
        return self.ws.close_code


async def test_limits(redis_node, start_server):
    srv = start_server(
        redis_node.url,
        "--rate",
        "20",
        "--burst",
        "20",
        "--rate-close",
        "50",
        "--max-conn-per-addr",
        "3",
        "--max-frame",
        "1024",
        "--max-races-per-player",
        "2",
        "--trusted-proxies",
        "127.0.0.1/32",
        fast=True,
    )
    # --- message credits: a burst is served, the excess refused with retry_ms, credits come back
    c = await Raw.open(srv.url)
    assert (await c.request("hello", v=1))["t"] == "welcome"
    for k in range(19):
        await c.ws.send(msgpack.packb({"t": "ping", "rid": 1000 + k}))
    for k in range(10):
        await c.ws.send(msgpack.packb({"t": "ping", "rid": 2000 + k}))
    replies = [msgpack.unpackb(await asyncio.wait_for(c.ws.recv(), DEADLINE)) for _ in range(29)]
    limited = [r for r in replies if r["t"] == "error"]
    assert limited and all(r["code"] == "rate-limited" and r["retry_ms"] > 0 for r in limited)
    assert sum(r["t"] == "pong" for r in replies) >= 19
    await asyncio.sleep(1.0)  # not a wait: credits come back with time (20 a second)
    assert (await c.request("ping"))["t"] == "pong"
    # ...and a client that keeps pushing regardless is closed (1008) after RATE_CLOSE refusals
    for k in range(200):
        try:
            await c.ws.send(msgpack.packb({"t": "ping", "rid": k}))
        except ConnectionClosed:
            break
    assert await c.closed_with() == 1008

    # --- connections per address: the 4th from one address is refused with 1008
    conns = [await Raw.open(srv.url) for _ in range(3)]
    for x in conns:
        assert (await x.request("ping"))["code"] == "hello-first"  # open and served
    extra = await Raw.open(srv.url)
    assert await extra.closed_with() == 1008
    # behind a trusted proxy, X-Forwarded-For is the address: other clients are not refused...
    fwd = [await Raw.open(srv.url, {"X-Forwarded-For": f"203.0.113.{i}"}) for i in range(3)]
    for x in fwd:
        assert (await x.request("ping"))["code"] == "hello-first"
    # ...and one client behind it still gets only its share
    same = [await Raw.open(srv.url, {"X-Forwarded-For": "198.51.100.7"}) for _ in range(4)]
    for x in same[:3]:
        assert (await x.request("ping"))["code"] == "hello-first"
    assert await same[3].closed_with() == 1008
    for x in conns + fwd + same[:3]:
        await x.ws.close()

    # --- frame size: over MAX_FRAME closes with 1009; at the limit is fine
    c = await Raw.open(srv.url)
    assert (await c.request("hello", v=1))["t"] == "welcome"
    ok = msgpack.packb({"t": "ping", "rid": 1, "x": "a" * (1024 - 20)})
    assert len(ok) <= 1024
    await c.ws.send(ok)
    assert msgpack.unpackb(await c.ws.recv())["code"] == "bad-message"  # unknown key, but read
    await c.ws.send(b"\x80" + b"a" * 1100)
    assert await c.closed_with() == 1009

    # --- races per player: seats held in unfinished races
    p = await client.connect(srv.url, name="greedy")
    r1 = await p.create("fours-up", seats=2)
    await p.create("fours-up", seats=2)
    with pytest.raises(client.ServerError) as err:
        await p.create("fours-up", seats=2)
    assert err.value.code == "too-many-races"
    q = await client.connect(srv.url, name="other")
    r3 = await q.create("fours-up", seats=2)
    with pytest.raises(client.ServerError) as err:
        await p.join(r3.race)
    assert err.value.code == "too-many-races"
    await p.leave(r1.race)  # a seat given up is a seat free
    await p.join(r3.race)
    await p.close()
    await q.close()
    assert srv.alive() and "Traceback" not in srv.log_text()


# --- the fuzz ------------------------------------------------------------------------------------------

FRAMES_WANTED = examples(2_000)
MAX_FRAME = 4096
ERROR_CODES = {c.value for c in m.ErrorCode} - {"internal"}
SERVER_TAGS = {cls.__struct_config__.tag for cls in m.SERVER_TYPES}
CLIENT_FIELDS: dict[str, list[str]] = {
    str(cls.__struct_config__.tag): [f.name for f in __import__("msgspec").structs.fields(cls)]
    for cls in m.CLIENT_TYPES
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.binary(max_size=40),
)
anything = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=10), st.integers()), inner, max_size=4),
    ),
    max_leaves=8,
)


def field_values(name: str, races: list[str]) -> st.SearchStrategy:
    """Plausible values first (so that frames get past the schema), then anything."""
    plausible = {
        "race": st.sampled_from(races + ["r" + "0" * 16, "nope", "", "r" * 64]),
        "game": st.sampled_from(list(rules.GAMES) + ["chess", ""]),
        "n": st.integers(-1, 40),
        "move": st.sampled_from(["draw", "w>f0", "t0>t1", "t0:2>t3", "f0>t0", "", "x" * 17, "t9>f9"]),
        "v": st.integers(0, 2),
        "seats": st.integers(0, 9),
        "time_limit_s": st.sampled_from([0, 29, 30, 600, 7200, 7201]),
        "rid": st.integers(-1, 2**31),
        "since": st.integers(-1, 50),
        "name": st.text(min_size=0, max_size=30),
        "token": st.text(max_size=130),
        "date": st.sampled_from(["2026-01-01", "1999-13-45", "today"]),
        "player": st.text(max_size=20),
    }.get(name)
    return st.one_of(plausible, anything) if plausible is not None else anything


@st.composite
def message(draw: Any, races: list[str]) -> dict:
    """A client message of a real type, fields valid or not, some dropped, some added."""
    t = draw(st.sampled_from(sorted(CLIENT_FIELDS)))
    msg: dict[Any, Any] = {"t": t}
    for name in CLIENT_FIELDS[t]:
        if draw(st.integers(0, 9)) < 8:
            msg[name] = draw(field_values(name, races))
    if draw(st.integers(0, 9)) == 0:
        msg[draw(st.text(max_size=8))] = draw(anything)
    if draw(st.integers(0, 19)) == 0:
        msg["t"] = draw(st.one_of(st.text(max_size=12), anything))
    if draw(st.integers(0, 29)) == 0:
        del msg["t"]
    return msg


def _pack(obj: Any) -> bytes:
    try:
        return msgpack.packb(obj, use_bin_type=True)
    except (TypeError, ValueError, OverflowError):
        return msgpack.packb(repr(obj))


def _mutate(data: bytes, rng: Any) -> bytes:
    """Byte-level damage to a packed message: flips, cuts, splices (cheap: no hypothesis draws)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randint(0, 2)
        if op == 0 and out:
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif op == 1 and out:
            del out[rng.randrange(len(out)) :]
        else:
            pos = rng.randint(0, len(out))
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(out)


@st.composite
def frames(draw: Any, races: list[str]) -> list[bytes | str]:
    """A base frame drawn by hypothesis, plus byte-mutated copies of it (drawn cheaply from a Random)."""
    kind = draw(st.integers(0, 99))
    if kind < 70:  # a (maybe broken) message of a real type
        base: bytes | str = _pack(draw(message(races)))
    elif kind < 85:  # any MessagePack value
        base = _pack(draw(anything))
    elif kind < 93:
        base = draw(st.binary(max_size=64))
    else:
        return [draw(st.text(max_size=64))]  # a text frame
    rng = draw(st.randoms(use_true_random=False))
    assert isinstance(base, bytes)
    return [base, *(_mutate(base, rng) for _ in range(3))]


@st.composite
def batch(draw: Any, races: list[str]) -> list[bytes | str]:
    out = [f for group in draw(st.lists(frames(races), min_size=15, max_size=25)) for f in group]
    if draw(st.integers(0, 9)) == 0:
        out.append(b"\x81" + b"\x00" * (MAX_FRAME + draw(st.integers(1, 100))))  # oversized, last: close 1009
    return out


async def _prepare(url: str) -> tuple[list[str], list[str]]:
    """A running race and a finished one, neither with the fuzzer in it; returns race ids, player ids."""
    a = await client.connect(url, name="ada")
    b = await client.connect(url, name="bob")
    running = await seated_race([a, b], "fours-up")
    for c in (a, b):
        await c.move(running, "draw")
    done = await seated_race([a, b], "racing-aces")
    await a.move(done, "draw")
    for c in (a, b):
        await c.finish(done)
    await a.wait_for("end", lambda e: e.race == done)
    assert a.player is not None and b.player is not None
    pids = [a.player, b.player]
    await a.close()
    await b.close()
    return [running, done], pids


def _race_state(r: redis.Redis, rids: list[str], pids: list[str]) -> list[Any]:
    out: list[Any] = []
    for rid in rids:
        rec = r.hgetall(S.race_key(rid))
        rec.pop(b"spectators", None)  # a spectator coming and going is not a change of the race
        out.append(rec)
        out.append(r.xrange(S.stream_key(rid)))
        for pid in pids:
            out.append(r.hgetall(S.player_key(rid, pid)))
            out.append(r.lrange(S.log_key(rid, pid), 0, -1))
        out.append(r.ttl(S.race_key(rid)) > 0)
    return out


class Fuzzer:
    """Sends batches of frames, then a ping; checks every answer up to its pong.

    A batch that ends with an oversized frame ends with a 1009 close: the
    frames the server had read but not yet handled go unanswered (documented:
    the connection is closed), so only the other batches count answers."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: ClientConnection | None = None
        self.sent = 0
        self.closes: list[int | None] = []
        self.replies = 0
        self.rid = itertools.count(10**9)

    def _open(self) -> ClientConnection:
        ws = self.ws = sync_connect(
            self.url, compression=None, max_size=None, open_timeout=DEADLINE
        ).__enter__()
        # Say hello first on most connections, so that frames reach the handlers.
        ws.send(msgpack.packb({"t": "hello", "v": 1, "name": "fuzz"}))
        welcome = ws.recv(DEADLINE)
        assert isinstance(welcome, bytes) and msgpack.unpackb(welcome)["t"] == "welcome"
        return ws

    def batch(self, frames: list[bytes | str]) -> None:
        ws = self.ws or self._open()
        oversized = False
        sent = 0
        for f in frames:
            try:
                ws.send(f)
            except ConnectionClosed:
                break
            self.sent += 1
            sent += 1
            if isinstance(f, bytes) and len(f) > MAX_FRAME:
                oversized = True  # always the last of a batch: the server closes with 1009
        sentinel = next(self.rid)
        try:
            if not oversized:
                ws.send(msgpack.packb({"t": "ping", "rid": sentinel}))
            answers = 0
            while True:
                data = ws.recv(DEADLINE)
                msg = self._check(data)
                if msg.get("rid") == sentinel and msg["t"] == "pong":
                    # Frames are handled in order, each with one direct answer: none went unanswered.
                    # But `hint` and `analysis` are answered when ready, not in order (protocol.md
                    # §1): their answers may still come after the pong.
                    while answers < sent:
                        self._check(ws.recv(DEADLINE))
                        answers += 1
                    return
                answers += 1
        except ConnectionClosed:
            code = ws.close_code
            self.closes.append(code)
            assert oversized and code == 1009, f"closed with {code} ({ws.close_reason})"
            self.ws = None
        except TimeoutError:
            raise AssertionError("the server stopped answering") from None

    def _check(self, data: bytes | str) -> dict:
        assert isinstance(data, bytes), "a text frame from the server"
        msg = msgpack.unpackb(data)
        assert isinstance(msg, dict) and msg.get("t") in SERVER_TAGS, msg
        if msg["t"] == "error":
            assert msg["code"] in ERROR_CODES, msg  # documented, and never `internal`
        self.replies += 1
        return msg

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


def test_fuzz_frames(redis_node, start_server):
    srv = start_server(redis_node.url)
    races, pids = asyncio.run(_prepare(srv.url))
    with redis_node.client() as r:
        before = _race_state(r, races, pids)
    fuzzer = Fuzzer(srv.url)

    @settings(
        max_examples=examples(30),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(batch(races))
    def run(frames: list) -> None:
        fuzzer.batch(frames)

    t0 = time.monotonic()
    try:
        run()
        while fuzzer.sent < FRAMES_WANTED:  # top up if hypothesis made fewer examples than planned
            run()
    finally:
        fuzzer.close()
    assert fuzzer.sent >= FRAMES_WANTED, fuzzer.sent
    # The server never crashed, logged no fault, and still serves.
    assert srv.alive()
    log = srv.log_text()
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]

    async def still_serves() -> None:
        c = await client.connect(srv.url, name="after")
        await c.ping()
        await c.close()

    asyncio.run(still_serves())

    def race_state() -> list:
        with redis_node.client() as r:
            return _race_state(r, races, pids)

    # no race state changed (once the fuzzer's disconnect cleanup, spectator counts, has run)
    with contextlib.suppress(TimeoutError):
        wait_until(lambda: race_state() == before, interval=0.05)
    assert race_state() == before
    print(
        f"fuzz: {fuzzer.sent} frames, {fuzzer.replies} replies, closes {fuzzer.closes}, "
        f"{time.monotonic() - t0:.1f} s"
    )
