"""The frame fast lane (server/net/wsconn.py) against raw bytes on a TCP socket.

The server cuts complete masked binary frames out of the stream itself and
hands everything else to websockets whole; these tests send the byte stream
of real clients and broken ones in awkward pieces: every message is answered,
in order, and control frames, fragments, text frames, bad masking and
oversized frames get what websockets would have done.
"""

from __future__ import annotations

import asyncio
import os
import random

import msgpack
import pytest
from must import must_be
from waiting import DEADLINE

HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def frame(payload: bytes, opcode: int = 2, fin: bool = True, mask: bytes | None = None) -> bytes:
    """A client frame (masked with a random key unless `mask` is given; b"" = unmasked)."""
    if mask is None:
        mask = os.urandom(4)
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + payload


def msg(obj: dict) -> bytes:
    return frame(msgpack.packb(obj))


class RawWS:
    """A byte-level WebSocket client: parses the server's (unmasked) frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, first: bytes = b"") -> RawWS:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(HANDSHAKE + first)
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    async def send_in_pieces(self, data: bytes, rng: random.Random) -> None:
        i = 0
        while i < len(data):
            step = rng.choice([1, 1, 2, 3, 5, 7, 13, 64, 500])
            self.writer.write(data[i : i + step])
            await self.writer.drain()
            i += step
            if rng.random() < 0.3:
                await asyncio.sleep(0.001)  # not a wait: the server reads the stream in more pieces

    async def recv(self, timeout: float = DEADLINE) -> tuple[int, bytes]:
        async def one() -> tuple[int, bytes]:
            b0, b1 = await self.reader.readexactly(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(await self.reader.readexactly(2), "big")
            elif n == 127:
                n = int.from_bytes(await self.reader.readexactly(8), "big")
            assert not b1 & 0x80, "server frames are not masked"
            return b0, await self.reader.readexactly(n)

        return await asyncio.wait_for(one(), timeout)

    async def recv_msg(self) -> dict:
        while True:
            b0, data = await self.recv()
            if b0 == 0x82:
                return msgpack.unpackb(data)
            assert b0 == 0x8A, hex(b0)  # only pongs may come in between

    async def closed_with(self) -> int:
        while True:
            b0, data = await self.recv()
            if b0 == 0x88:
                return int.from_bytes(data[:2], "big")

    def close(self) -> None:
        self.writer.close()


async def test_stream_cut_anywhere(server):
    """Pings (messages and control frames) in a stream cut at random points: all answered, in order."""
    rng = random.Random(7)
    ws = await RawWS.open(server.port)
    # The hello whole, and its welcome awaited: the fast lane is on from the first byte of the
    # stream below (bytes that reach the server before the gateway takes the connection go
    # through websockets, as test_frames_sent_with_the_handshake shows).
    ws.writer.write(msg({"t": "hello", "v": 1, "name": "bytes"}))
    assert (await ws.recv_msg())["t"] == "welcome"
    stream = b""
    expect: list[tuple[str, int | bytes]] = []
    for k in range(200):
        stream += msg({"t": "ping", "rid": k})
        expect.append(("pong", k))
        if k % 17 == 0:
            stream += frame(b"hb%d" % k, opcode=9)  # a control ping: websockets answers pong
            expect.append(("ctl", b"hb%d" % k))
        if k % 23 == 0:
            stream += frame(b"", opcode=10)  # an unsolicited pong: ignored
    await ws.send_in_pieces(stream, rng)
    got: list[tuple[str, int | bytes]] = []
    while len(got) < len(expect):
        b0, data = await ws.recv()
        if b0 == 0x8A:
            got.append(("ctl", data))
        else:
            m = msgpack.unpackb(data)
            got.append((m["t"], m["rid"]))
    assert all(c.ws.fast for c in server.gateway.conns), "the fast lane was used"
    # messages in order among themselves, control pongs in order among themselves
    assert [g for g in got if g[0] == "pong"] == [e for e in expect if e[0] == "pong"]
    assert [g for g in got if g[0] == "ctl"] == [e for e in expect if e[0] == "ctl"]
    ws.close()


async def test_fragments_text_and_empty(server):
    ws = await RawWS.open(server.port)
    ws.writer.write(msg({"t": "hello", "v": 1}))
    assert (await ws.recv_msg())["t"] == "welcome"
    body = msgpack.packb({"t": "ping", "rid": 5})
    # a fragmented binary message (with a control ping in the middle) is one message
    ws.writer.write(
        frame(body[:3], fin=False)
        + frame(b"x", opcode=9)
        + frame(body[3:7], opcode=0, fin=False)
        + frame(body[7:], opcode=0)
    )
    b0, data = await ws.recv()
    assert (b0, data) == (0x8A, b"x")
    assert await ws.recv_msg() == {"t": "pong", "rid": 5, "time": pytest.approx(0, abs=10**13)}
    # a text frame: bad-frame; an empty binary frame: bad-frame; then business as usual
    ws.writer.write(frame(b'{"t": "ping"}', opcode=1) + frame(b"") + msg({"t": "ping", "rid": 6}))
    assert (await ws.recv_msg())["code"] == "bad-frame"
    assert (await ws.recv_msg())["code"] == "bad-frame"
    assert (await ws.recv_msg())["rid"] == 6
    # 16-bit length form
    ws.writer.write(msg({"t": "ping", "rid": 7, "zz": "y" * 300}))
    assert (await ws.recv_msg())["code"] == "bad-message"
    ws.close()


async def test_frames_sent_with_the_handshake(server):
    """A client that does not wait for the 101 (against RFC 6455): served through websockets."""
    first = msg({"t": "hello", "v": 1}) + msg({"t": "ping", "rid": 1})
    ws = await RawWS.open(server.port, first=first[: len(first) - 3])
    ws.writer.write(first[len(first) - 3 :] + msg({"t": "ping", "rid": 2}))
    assert (await ws.recv_msg())["t"] == "welcome"
    assert (await ws.recv_msg())["rid"] == 1
    assert (await ws.recv_msg())["rid"] == 2
    ws.close()


@pytest.mark.parametrize("case", ["unmasked", "reserved-bit", "oversized-16", "oversized-64", "close"])
async def test_protocol_errors_close(server, case):
    ws = await RawWS.open(server.port)
    ws.writer.write(msg({"t": "hello", "v": 1}))
    assert (await ws.recv_msg())["t"] == "welcome"
    ping = msgpack.packb({"t": "ping", "rid": 1})
    bad, code = {
        "unmasked": (frame(ping, mask=b""), 1002),
        "reserved-bit": (bytes([0xC2]) + frame(ping)[1:], 1002),
        "oversized-16": (frame(b"\x80" + b"a" * 5000), 1009),
        "oversized-64": (frame(b"\x80" + b"a" * 70000), 1009),
        "close": (frame((1000).to_bytes(2, "big") + b"bye", opcode=8), 1000),
    }[case]
    # a frame answered at once in the same write first: its answer goes out before the close
    ws.writer.write(msg({"t": "ping", "rid": 0, "zz": 1}) + bad + msg({"t": "ping", "rid": 2}))
    assert (await ws.recv_msg())["rid"] == 0
    assert await ws.closed_with() == code
    ws.close()
    # the server serves others as before
    other = await RawWS.open(server.port)
    other.writer.write(msg({"t": "hello", "v": 1}) + msg({"t": "ping", "rid": 9}))
    assert (await other.recv_msg())["t"] == "welcome"
    assert (await other.recv_msg())["rid"] == 9
    other.close()


async def test_keepalive_pongs_reach_websockets(make_server):
    """Pongs go through websockets (acknowledge_pings): a live client outlasts many keepalive rounds."""
    from websockets.asyncio.client import connect

    # A pong late by a second on a loaded machine is still in time; unmatched pongs would
    # close the connection 1.2 s in.
    app = await make_server(ping_interval_s=0.2, ping_timeout_s=1.0)
    ws = await connect(app.ws_url, compression=None)
    await ws.send(msgpack.packb({"t": "hello", "v": 1}))
    assert msgpack.unpackb(must_be(await ws.recv(), bytes))["t"] == "welcome"
    reader = asyncio.ensure_future(ws.recv())  # the library answers pings while it reads
    await asyncio.sleep(2.5)  # not a wait: the time the keepalive gets to close us, twice over
    assert not reader.done(), "closed by the keepalive"
    await ws.send(msgpack.packb({"t": "ping", "rid": 1}))
    assert msgpack.unpackb(must_be(await reader, bytes))["t"] == "pong"
    assert next(iter(app.gateway.conns)).ws.latency > 0  # pongs were matched to the server's pings
    await ws.close()
