"""One client connection: identity, rate credits, and a bounded outbound queue.

Sending never blocks the caller (the move path, the bus fan-out): while the
socket keeps up, a frame goes straight into the transport (as
`websockets.broadcast` does); once the transport buffer is above its
high-water mark, frames wait in a queue drained by a writer task that
respects flow control. A client that lets OUTBOUND_QUEUE frames pile up has
stopped reading: it is closed (1008) instead of buffered for ever; its TCP
connection is dropped at once, since a close frame could not get through.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from websockets.protocol import State

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

log = logging.getLogger("solrace.conn")

_OPEN = State.OPEN
CLOSE_LIMIT = 10.0  # seconds: the longest a close we start may take before the TCP connection is dropped


class Conn:
    __slots__ = (
        "ws", "addr", "pid", "name", "queue", "limit", "high", "writer", "closed",
        "credits", "stamp", "rate", "burst", "limited", "races", "spectating", "quick",
        "metrics", "__weakref__",
    )

    def __init__(self, ws: "ServerConnection", addr: str, *, rate: float, burst: int,
                 outbound_queue: int, metrics: Any = None) -> None:
        self.ws = ws
        self.addr = addr
        self.pid: str | None = None  # set by hello
        self.name = ""
        self.queue: deque[bytes] = deque()
        self.limit = outbound_queue
        # Direct writes only while the transport buffer is below websockets' own
        # high-water mark; beyond it the writer task takes over.
        self.high = 2**15
        self.writer: asyncio.Task | None = None
        self.closed = False
        self.rate = rate
        self.burst = burst
        self.credits = float(burst)
        self.stamp = time.monotonic()
        self.limited = 0  # rate-limited messages in a row
        self.races: set[str] = set()  # races where this connection receives member events
        self.spectating: set[str] = set()
        self.quick: set[tuple[str, int]] = set()
        self.metrics = metrics

    # --- rate limit (token bucket) -------------------------------------------------

    def take_credit(self) -> float:
        """Spend one message credit; return 0 if allowed, else ms until one is available."""
        now = time.monotonic()
        credits = self.credits + (now - self.stamp) * self.rate
        if credits > self.burst:
            credits = self.burst
        self.stamp = now
        if credits >= 1.0:
            self.credits = credits - 1.0
            self.limited = 0
            return 0.0
        self.credits = credits
        self.limited += 1
        return (1.0 - credits) / self.rate * 1000.0

    # --- sending -----------------------------------------------------------------------

    def send(self, frame: bytes) -> None:
        """Queue one binary frame; never blocks, never raises."""
        if self.closed:
            return
        ws = self.ws
        if not self.queue:
            transport = ws.transport
            if ws.protocol.state is _OPEN and transport.get_write_buffer_size() < self.high:
                try:
                    ws.protocol.send_binary(frame)
                    ws.send_data()
                except Exception:  # the peer went away under us; the handler cleans up
                    self.closed = True
                return
        if len(self.queue) >= self.limit:
            self.abort(1008, "outbound queue full: the client stopped reading")
            return
        self.queue.append(frame)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.queue and not self.closed:
                await self.ws.send(self.queue[0])
                self.queue.popleft()
        except Exception:
            self.closed = True

    def abort(self, code: int, reason: str) -> None:
        """Close the connection with `code` (in the background)."""
        if self.closed:
            return
        self.closed = True
        self.queue.clear()
        if self.metrics is not None:
            self.metrics.closes[code] += 1
        asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        ws = self.ws
        transport = ws.transport
        if transport.get_write_buffer_size() >= self.high:
            # The peer is not reading: a close frame would wait behind the backlog for ever
            # (websockets' close() drains first). Drop the TCP connection now.
            transport.abort()
            return
        try:
            # close() waits for the peer's close frame up to the server's close_timeout;
            # the outer bound covers a peer that stops reading during the handshake.
            await asyncio.wait_for(ws.close(code, reason), CLOSE_LIMIT)
        except (asyncio.TimeoutError, TimeoutError):
            transport.abort()
        except Exception:
            log.exception("close failed")
