"""Slow consumers: a client that stops reading is closed within a bound; the others do not wait for it."""

from __future__ import annotations

import asyncio
import re
import socket
import statistics
import time
import urllib.request

import msgpack
from scale_play import EndlessStrategy, seated_race
from waiting import DEADLINE, until
from websockets.asyncio.client import connect as ws_connect

import client


def metric(http_url: str, name: str) -> int:
    body = urllib.request.urlopen(http_url + "metrics", timeout=DEADLINE).read().decode()
    found = re.search("^" + re.escape(name) + r" (\d+)$", body, re.M)
    return int(found.group(1)) if found else 0


CLOSES_1008 = 'solrace_closes_total{code="1008"}'


async def _timed_moves(c: client.Client, rid: str, strat: EndlessStrategy, count: int) -> list[float]:
    out = []
    board = c.board(rid)
    for _ in range(count):
        mv = strat.choose(board.view)
        assert mv is not None
        t0 = time.perf_counter()
        await c.move(rid, mv)
        out.append(time.perf_counter() - t0)
    return out


def _p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


async def test_stalled_spectator_is_closed_and_others_keep_their_latency(redis_node, start_server):
    # Small buffers so that the test needs few moves; the bound is the same formula with the defaults.
    srv = start_server(redis_node.url, "--outbound-queue", "64", "--sndbuf", "16384")
    a = await client.connect(srv.url, name="ada")
    b = await client.connect(srv.url, name="bob")
    try:
        rid = await seated_race([a, b], "fours-up", time_limit_s=600)  # random play never gets stuck
        sa, sb = EndlessStrategy(1), EndlessStrategy(2)
        # warm up, then the baseline: ada's move latency with nobody stalled
        await _timed_moves(a, rid, sa, 20)
        before = []
        for _ in range(8):
            before += await _timed_moves(a, rid, sa, 10)
            await _timed_moves(b, rid, sb, 10)
        # a spectator whose application stops reading: the library reads one frame ahead, then
        # the socket fills (small receive buffer), then the server's buffers, then its queue
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", srv.port))
        stalled = await ws_connect(srv.url, sock=sock, max_queue=1, ping_interval=None, compression=None)
        await stalled.send(msgpack.packb({"t": "hello", "v": 1, "name": "sloth"}))
        await stalled.recv()
        await stalled.send(msgpack.packb({"t": "spectate", "rid": 1, "race": rid}))
        assert metric(srv.http_url, "solrace_connections") == 3
        during = []
        t0 = time.monotonic()
        closed_after = None
        for _round in range(200):
            during += await _timed_moves(a, rid, sa, 5)
            await _timed_moves(b, rid, sb, 5)
            if _round % 5 == 4 and metric(srv.http_url, CLOSES_1008):
                closed_after = (time.monotonic() - t0, len(during) * 2)
                break
        assert closed_after is not None, "the stalled spectator was never closed"
        seconds, moves = closed_after
        # The documented bound: closed once its backlog passes the kernel buffer (2 x sndbuf),
        # the 32 KiB transport buffer and OUTBOUND_QUEUE frames. Progress frames are ~100 bytes,
        # so well under 1000 moves here; generous on time for a slow machine.
        assert moves < 2000 and seconds < 30, closed_after
        # ...and its TCP connection is gone, not waiting for a close handshake it cannot do
        await until(lambda: metric(srv.http_url, "solrace_connections") == 2, interval=0.05, what="dropped")
        # The others' latency did not suffer (same run, same machine; generous thresholds: a
        # server held up by the stalled socket would cost the others whole seconds, while a
        # machine shared with other work moves these figures by tens of milliseconds).
        p50b, p50d = statistics.median(before), statistics.median(during)
        p95b, p95d = _p(before, 0.95), _p(during, 0.95)
        assert p50d < 3 * p50b + 0.05, (p50b, p50d)
        assert p95d < 3 * p95b + 0.2, (p95b, p95d)
        assert a.connected and b.connected
        stalled.transport.abort()
    finally:
        await a.close()
        await b.close()
    assert "Traceback" not in srv.log_text()


async def test_silent_peer_is_closed_by_the_keepalive(redis_node, start_server):
    """A peer that neither reads nor writes (a vanished machine) is dropped after
    ping interval + ping timeout + close timeout (the 1011 close handshake it cannot answer)."""
    srv = start_server(
        redis_node.url, "--ping-interval-s", "0.5", "--ping-timeout-s", "0.5", "--close-timeout-s", "0.5"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    writer.write(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    hello = msgpack.packb({"t": "hello", "v": 1})
    mask = b"\x00\x00\x00\x00"
    writer.write(bytes([0x82, 0x80 | len(hello)]) + mask + hello)  # masked with zeros: the payload as is
    await writer.drain()
    await until(lambda: metric(srv.http_url, "solrace_connections") == 1, what="the peer connected")
    t0 = time.monotonic()
    # from now on the peer is silent: it answers no ping
    await until(
        lambda: metric(srv.http_url, "solrace_connections") == 0, interval=0.1, what="the peer dropped"
    )
    elapsed = time.monotonic() - t0
    # the three timeouts (+ slack for a loaded machine; the defaults would take 20 + 20 + 10 s)
    assert elapsed < 0.5 + 0.5 + 0.5 + 6, elapsed
    writer.transport.abort()


def test_coalesced_boards_skip_backlogged_spectators():
    """Spectator boards go out in one websockets.broadcast; a backlogged spectator skips one (latest wins)."""
    from types import SimpleNamespace

    from websockets.protocol import State

    from server.net.broadcast import broadcast_latest

    class FakeWS:
        def __init__(self, buffered: int) -> None:
            self.protocol = SimpleNamespace(state=State.OPEN, send_binary=self._frame)
            self.transport = SimpleNamespace(get_write_buffer_size=lambda: buffered)
            self.send_in_progress = None
            self.frames: list[bytes] = []
            self.flushed = 0

        def _frame(self, data: bytes) -> None:
            self.frames.append(data)

        def send_data(self) -> None:
            self.flushed += 1

    def conn(buffered: int = 0, queued: int = 0, pending: bool = False) -> SimpleNamespace:
        c = SimpleNamespace(
            closed=False,
            queue=[b"x"] * queued,
            ws=FakeWS(buffered),
            high=2**15,
            out=[b"earlier"] if pending else None,
            sent=[],
        )
        c.send = c.sent.append
        return c

    keeping_up = [conn(), conn(buffered=100)]
    lagging = [conn(buffered=2**15), conn(queued=3)]
    busy = conn(pending=True)
    sent, skipped = broadcast_latest(keeping_up + lagging + [busy], b"boards")
    assert (sent, skipped) == (2, 2)
    assert all(c.ws.frames == [b"boards"] and c.ws.flushed == 1 for c in keeping_up)
    assert all(not c.ws.frames and not c.sent for c in lagging)
    assert busy.sent == [b"boards"] and not busy.ws.frames  # behind its frames of this iteration
