"""Control frames are bounded like data frames (server/net/wsconn.py, docs/operations.md §5).

websockets answers each ping with a pong written straight to the socket, outside the
connection's outbound accounting: a peer sending pings without reading grew the process
without bound (an audit saw 55 → 404 MiB in 60 s from one connection, never closed). Each
ping now spends a message credit (over the rate it is dropped; RATE_CLOSE of them close the
connection), and what websockets has written is bounded by OUTBOUND_BYTES.
"""

from __future__ import annotations

import asyncio
import base64
import os
import select
import socket
import sys
import time
from pathlib import Path

import msgpack
import pytest
import websockets
from waiting import DEADLINE
from wsclient import player

HERE = Path(__file__).parent


def _frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame (mask key 0: the payload as is) of at most 125 bytes."""
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def _flood_until_closed(url: str) -> float:
    """Open a WebSocket, then send pings and never read (no hello either: nothing but the
    pongs is written to it). Seconds until the server drops the connection (a send
    fails), or raises after DEADLINE."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    s = socket.create_connection((host, int(port)), timeout=DEADLINE)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the pongs pile up on the server
    try:
        key = base64.b64encode(os.urandom(16))
        s.sendall(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 101"), head
        pings = _frame(9, b"p" * 125) * 1000
        s.setblocking(False)
        out = memoryview(b"")
        t0 = time.monotonic()
        while time.monotonic() - t0 < DEADLINE:
            if not out:
                out = memoryview(pings)  # whole frames only: a partial one stays queued here
            # Writable within 0.5 s, else the server reads no more for now: still open, go on.
            if not select.select([], [s], [], 0.5)[1]:
                continue
            try:
                out = out[s.send(out) :]
            except BlockingIOError:
                continue
            except (ConnectionResetError, BrokenPipeError):  # the server dropped us
                return time.monotonic() - t0
        raise AssertionError(f"still open after {DEADLINE} s of pings")
    finally:
        s.close()


@pytest.mark.parametrize(
    "limits",
    [
        {"rate": 30, "burst": 60, "rate_close": 200},  # the rate limit ends it
        {"outbound_bytes": 65536},  # FAST's rate is unbounded: the pongs' backlog ends it
    ],
    ids=["rate", "backlog"],
)
async def test_a_ping_flood_that_reads_nothing_holds_bounded_memory(make_server, limits) -> None:
    app = await make_server(hello_timeout_s=60, **limits)  # the flood, not the hello timeout
    bound = max(app.settings.outbound_bytes, 2**18) + 2**18  # and one read's worth of pongs
    # In a process of its own: a flooding thread here would fight the server for the GIL.
    flood = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from test_server_control_frames import _flood_until_closed as f; f(sys.argv[1])",
        app.ws_url,
        cwd=HERE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (HERE, HERE.parent)))},
        stderr=asyncio.subprocess.DEVNULL,
    )
    held = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    try:
        # What the server holds for the flooder (websockets' pongs in its transport buffer),
        # sampled until the server drops it or for 10 s of flood.
        while flood.returncode is None and loop.time() < end:
            for conn in list(app.gateway.conns):
                held = max(held, conn.ws.transport.get_write_buffer_size())
            try:
                await asyncio.wait_for(flood.wait(), 0.05)
            except TimeoutError:
                pass
    finally:
        if flood.returncode is None:
            flood.kill()
            await flood.wait()
    assert held <= bound, f"the server held {held} bytes of pongs for a client reading nothing"
    c = await player(app.ws_url, "after")  # the process serves on
    assert (await c.request("ping"))["t"] == "pong"
    await c.close()


async def test_a_ping_flood_that_reads_is_told_why_it_was_closed(make_server) -> None:
    # docs/protocol.md §6: 1008 "rate limit abused". The connection was dropped at once,
    # after only scheduling the close frame: the client saw 1006 and no reason.
    app = await make_server(rate=30, burst=60, rate_close=200)
    async with websockets.connect(app.ws_url, compression=None) as ws:
        await ws.send(msgpack.packb({"t": "hello", "v": 1, "rid": 0}))
        assert msgpack.unpackb(await ws.recv(decode=False))["t"] == "welcome"
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:  # pings until the server closes (a loaded machine sends slower)
            try:
                await ws.ping()
            except websockets.ConnectionClosed:
                break
        await asyncio.wait_for(ws.wait_closed(), DEADLINE)
    assert (ws.close_code, ws.close_reason) == (1008, "rate limit abused")
