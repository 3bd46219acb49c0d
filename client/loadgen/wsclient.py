"""A lean WebSocket client on a bare asyncio Protocol, for the load generator.

The load generator must cost much less per message than the servers it
measures, or it measures itself. The websockets library costs tens of µs per
frame in Python on each side; this client costs a few:

* frames are written with an all-zero masking key (RFC 6455 §5.3 requires a
  mask from clients, not an unpredictable one outside browsers), so masking
  is the identity and a frame is a 2–8 byte header plus the payload as is;
* inbound frames (the server never masks) are cut out of the buffer with one
  slice each and handed to ``on_message(payload)`` synchronously;
* ping is answered with pong, close with close; no compression is offered
  (the servers under test refuse it anyway); fragmented messages are joined.

It is not a general client: no TLS, no extensions, no text frames on send.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable, Iterable
from typing import cast

__all__ = ["WSClient", "open_ws", "frame", "close_all"]

_MASK0 = b"\x00\x00\x00\x00"
# The header of a binary client frame of each payload size under 126 bytes
# (every move frame): one indexing instead of building it per frame.
_BINARY_HEAD = [bytes((0x82, 0x80 | n)) + _MASK0 for n in range(126)]


def frame(payload: bytes, opcode: int = 0x2) -> bytes:
    """One client frame (FIN, masked with the zero key) carrying `payload`."""
    n = len(payload)
    b0 = 0x80 | opcode
    if n < 126:
        head = bytes((b0, 0x80 | n))
    elif n < 65536:
        head = bytes((b0, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((b0, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + _MASK0 + payload


class WSClient(asyncio.Protocol):
    __slots__ = (
        "host",
        "port",
        "path",
        "transport",
        "buf",
        "ready",
        "closed",
        "on_message",
        "on_close",
        "_frag",
        "_key",
    )

    def __init__(
        self,
        host: str,
        port: int,
        path: str,
        on_message: Callable[[bytes], None] | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.path = path
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False
        self.on_message = on_message
        self.on_close = on_close
        self._frag: list[bytes] | None = None
        self._key = base64.b64encode(os.urandom(16)).decode()

    # --- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A TCP connection's transport: asyncio's is an asyncio.Transport, uvloop's
        # has the same methods without subclassing it, so no isinstance check.
        self.transport = transport = cast(asyncio.Transport, transport)
        req = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {self._key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        transport.write(req.encode())

    def data_received(self, data: bytes) -> None:
        transport = self.transport
        if transport is None:  # never: data comes after connection_made
            return
        buf = self.buf + data if self.buf else data
        if not self.ready.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.buf = buf
                return
            status = buf[: buf.find(b"\r\n")]
            if b" 101 " not in status + b" ":
                self.ready.set_exception(
                    ConnectionError(f"handshake refused: {status.decode(errors='replace')}")
                )
                transport.close()
                return
            self.ready.set_result(None)
            buf = buf[end + 4 :]
        pos = 0
        size = len(buf)
        on_message = self.on_message
        while size - pos >= 2:
            b0 = buf[pos]
            n = buf[pos + 1] & 0x7F
            head = 2
            if n == 126:
                if size - pos < 4:
                    break
                n = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif n == 127:
                if size - pos < 10:
                    break
                n = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if size - pos < head + n:
                break
            payload = buf[pos + head : pos + head + n]
            pos += head + n
            op = b0 & 0x0F
            if op == 0x2 or op == 0x1:
                if b0 & 0x80:
                    if on_message is not None:
                        on_message(payload)
                else:
                    self._frag = [payload]
            elif op == 0x0:
                if self._frag is not None:
                    self._frag.append(payload)
                    if b0 & 0x80:
                        whole, self._frag = b"".join(self._frag), None
                        if on_message is not None:
                            on_message(whole)
            elif op == 0x9:
                transport.write(frame(payload, 0xA))
            elif op == 0x8:
                if not self.closed:
                    self.closed = True
                    transport.write(frame(payload[:2], 0x8))
                    transport.close()
                self.buf = b""
                return
        self.buf = buf[pos:] if pos < size else b""

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"connection lost in handshake: {exc}"))
        if self.on_close is not None:
            self.on_close()

    # --- API

    def send(self, payload: bytes) -> None:
        if not self.closed and self.transport is not None:
            n = len(payload)
            self.transport.write(_BINARY_HEAD[n] + payload if n < 126 else frame(payload))

    def send_frame(self, data: bytes) -> None:
        """Write an already framed message (see `frame`)."""
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.closed = True
            self.transport.write(frame(b"\x03\xe8", 0x8))
            self.transport.close()

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


async def open_ws(
    host: str,
    port: int,
    path: str = "/ws",
    *,
    on_message: Callable[[bytes], None] | None = None,
    on_close: Callable[[], None] | None = None,
    timeout: float = 30.0,
) -> WSClient:
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _t, proto = await loop.create_connection(
            lambda: WSClient(host, port, path, on_message, on_close), host, port
        )
    async with asyncio.timeout(timeout):
        await proto.ready
    return proto


def close_all(conns: Iterable[WSClient | None]) -> None:
    for ws in conns:
        if ws is not None:
            ws.close()
