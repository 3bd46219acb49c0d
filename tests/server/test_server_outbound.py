"""Outbound memory is bounded in bytes: per connection (OUTBOUND_BYTES) and per process (OUTBOUND_TOTAL).

Clients that never read and keep asking for large replies (`resync` with
`since`) are closed (1008, TCP dropped) before they pin more than their
bound; the server's resident memory stays flat. Real sockets, a real server
process for the memory figures.
"""

from __future__ import annotations

import asyncio
import os
import socket
import urllib.request
from pathlib import Path

import msgpack
import redis.asyncio as aioredis
from redis_replies import raw
from test_server_race import make_race, play
from waiting import until
from wsclient import Raw, player

from server.storage.keys import race_key, stream_key

HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
EVENTS = 1000  # events in the race's stream
EVENT_BYTES = 400  # each: a `state` with 256 of them is ~100 KB, like a long race's


def masked(obj: dict) -> bytes:
    payload = msgpack.packb(obj)
    mask = os.urandom(4)
    n = len(payload)
    head = b"\x82" + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (resident now) and VmHWM (peak resident) of a process, KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def metric(url: str, name: str) -> float:
    base = url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


async def long_race(url: str, redis_url: str) -> tuple[str, int, list[Raw]]:
    """A running race whose stream holds EVENTS large events; returns (race, ver, players)."""
    a = await player(url, "ada")
    b = await player(url, "bob")
    rid = await make_race(None, [a, b], "fours-up")
    await play(a, rid, ["draw"])
    # Test hook: a long race's stream, written straight into Redis (the server serves
    # `resync since` from the stream as stored).
    r = aioredis.Redis.from_url(redis_url)
    try:
        ver = int(raw(await r.hget(race_key(rid), "ver")))
        pipe = r.pipeline(transaction=False)
        for v in range(ver + 1, ver + EVENTS + 1):
            frame = msgpack.packb({"t": "progress", "race": rid, "ver": v, "pad": "x" * EVENT_BYTES})
            pipe.xadd(stream_key(rid), {"m": frame}, id=f"{v}-0")
        pipe.hset(race_key(rid), "ver", ver + EVENTS)
        await pipe.execute()
    finally:
        await r.aclose()
    return rid, ver + EVENTS, [a, b]


async def stalled_client(port: int, rid: str, since: int, requests: int) -> socket.socket:
    """A client that says hello and asks `requests` resyncs in one go, and never reads."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    frames = [masked({"t": "hello", "rid": 1, "v": 1, "name": "slow"})]
    frames += [masked({"t": "resync", "rid": i + 2, "race": rid, "since": since}) for i in range(requests)]
    await loop.sock_sendall(sock, HANDSHAKE + b"".join(frames))
    return sock


async def test_stalled_resync_clients_keep_memory_bounded(serve_process, fast_settings):
    url, proc = serve_process()
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    rid, ver, players = await long_race(url, fast_settings.redis)
    since = ver - 256  # 256 events: the largest `state` RESYNC_EVENTS allows
    # Warm up the path (and the allocator) with a client that reads.
    for _ in range(3):
        state = await players[0].request("resync", race=rid, since=since)
        assert len(state["events"]) == 256
    too_many = await players[0].request("resync", race=rid, since=since - 1)
    assert too_many.get("events") is None  # over RESYNC_EVENTS: the snapshot alone
    # The peak from here on only, not the start's or the setup's: writing 5 resets VmHWM to VmRSS.
    Path(f"/proc/{proc.pid}/clear_refs").write_text("5")
    before = memory_kib(proc.pid)
    figures = []
    for _round in range(3):
        closes = metric(url, 'solrace_closes_total{code="1008"}')
        socks = [await stalled_client(port, rid, since, 55) for _ in range(20)]

        def all_closed(closes: float = closes) -> bool:
            return metric(url, 'solrace_closes_total{code="1008"}') >= closes + 20

        await until(all_closed, what="the 20 stalled clients closed")
        for s in socks:
            s.close()
        await until(lambda: metric(url, "solrace_connections") <= 2, what="the stalled connections gone")
        figures.append(memory_kib(proc.pid))
    # The reading player is still served.
    assert (await players[0].request("ping"))["t"] == "pong"
    peak_growth = (figures[-1]["VmHWM"] - before["VmRSS"]) / 1024
    kept = (figures[-1]["VmRSS"] - before["VmRSS"]) / 1024
    print(f"RSS before {before['VmRSS'] / 1024:.1f} MiB; rounds {figures}; peak +{peak_growth:.1f} MiB")
    # 20 x (OUTBOUND_BYTES 256 KiB + one reply + the transport's 32 KiB) is ~8 MiB; unbounded it was
    # 55 replies of ~100 KB each, ~110 MB.
    assert peak_growth < 40, (before, figures)
    assert kept < 40, (before, figures)


async def test_process_wide_bound_closes_the_largest_backlogs(make_server):
    app = await make_server(outbound_total=2 * 2**20, outbound_bytes=64 * 2**20, outbound_queue=10**6)
    rid, ver, players = await long_race(app.ws_url, app.settings.redis)
    socks = [await stalled_client(app.port, rid, ver - 256, 55) for _ in range(8)]
    backlog = app.gateway.outbox.backlog
    await until(lambda: backlog.closed >= 1, what="a stalled client closed for OUTBOUND_TOTAL")
    await until(lambda: app.metrics.connections <= 2 + 8 - backlog.closed, what="closed connections gone")
    # Never much over the bound: at most one reply plus the transports' high-water marks beyond it.
    assert backlog.total <= 2 * 2**20
    assert (await players[0].request("ping"))["t"] == "pong"  # a client that reads is not touched
    for s in socks:
        s.close()
