"""One client connection: identity, rate credits, inbound work, and a bounded outbound queue.

Sending never blocks the caller (the move path, the bus fan-out). Frames sent
during one event-loop iteration are collected per connection and written
together at the end of it by `Outbox` — header and payload of each frame
straight into the transport (server/wsconn.py), one write per socket per
iteration however many frames (an ack and a rival's progress often meet) —
while the socket keeps up. Once the transport buffer is above its high-water
mark, frames wait in a queue drained by a writer task that respects flow
control. A client that lets OUTBOUND_QUEUE frames pile up has stopped
reading: it is closed (1008) instead of buffered for ever; its TCP
connection is dropped at once, since a close frame could not get through.

Inbound (server/gateway.py): frames are handled synchronously as they are
parsed; one that needs to wait (Redis, a cold-path request) becomes the
connection's `job`, run by its handler task, and the frames behind it wait in
`inq` (reading pauses beyond INBOUND_HIGH of them), so a connection's
requests are answered in order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from websockets.protocol import State

from .wsconn import frame_header

if TYPE_CHECKING:
    from .wsconn import FastConnection

log = logging.getLogger("solrace.conn")

_OPEN = State.OPEN
CLOSE_LIMIT = 10.0  # seconds: the longest a close we start may take before the TCP connection is dropped
INBOUND_HIGH = 16  # frames waiting behind a job before reading pauses (websockets' max_queue)
INBOUND_LOW = 4  # ...and resumes


class Outbox:
    """Writes the frames each connection got during one loop iteration, once per socket."""

    __slots__ = ("pending", "scheduled", "loop")

    def __init__(self) -> None:
        self.pending: list[Conn] = []
        self.scheduled = False
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, conn: Conn) -> None:
        self.pending.append(conn)
        if not self.scheduled:
            self.scheduled = True
            loop = self.loop
            if loop is None:
                loop = self.loop = asyncio.get_running_loop()
            loop.call_soon(self.flush)

    def flush(self) -> None:
        self.scheduled = False
        pending, self.pending = self.pending, []
        for conn in pending:
            try:
                conn.flush()
            except Exception:  # never lose the other sockets' frames
                log.exception("flush failed")


class Conn:
    __slots__ = (
        "ws",
        "addr",
        "pid",
        "name",
        "queue",
        "limit",
        "high",
        "writer",
        "closed",
        "credits",
        "stamp",
        "rate",
        "burst",
        "limited",
        "races",
        "spectating",
        "quick",
        "metrics",
        "out",
        "outbox",
        "inq",
        "busy",
        "job",
        "wake",
        "paused",
        "lost",
        "hello_by",
        "timer",
        "__weakref__",
    )

    def __init__(
        self,
        ws: FastConnection,
        addr: str,
        *,
        rate: float,
        burst: int,
        outbound_queue: int,
        metrics: Any = None,
        outbox: Outbox | None = None,
    ) -> None:
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
        self.out: list[bytes] | None = None  # frames of this loop iteration, not yet written
        self.outbox = outbox if outbox is not None else Outbox()
        # inbound (server/gateway.py)
        self.inq: deque[bytes | str] | None = None  # created when a frame has to wait
        self.busy = False  # a job runs: new frames wait in inq
        self.job: Awaitable[None] | None = None
        self.wake: asyncio.Future | None = None
        self.paused = False  # reading paused (inq full)
        self.lost = False  # the TCP connection is gone
        self.hello_by: float | None = None  # loop time by which hello must have succeeded
        self.timer: asyncio.TimerHandle | None = None  # HELLO_TIMEOUT, cancelled by the hello

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
        """Queue one binary frame (written at the end of this loop iteration); never blocks, never raises."""
        if self.closed:
            return
        out = self.out
        if out is None:
            self.out = [frame]
            self.outbox.add(self)
            return
        out.append(frame)
        if len(out) + len(self.queue) >= self.limit:
            try:
                full = self.ws.transport.get_write_buffer_size() >= self.high
            except Exception:
                full = True
            if full:
                self.abort(1008, "outbound queue full: the client stopped reading")

    def flush(self) -> None:
        """Write the frames of this iteration: one transport write, or the queue if the socket lags."""
        out = self.out
        self.out = None
        if out is None or self.closed:
            return
        ws = self.ws
        if ws.protocol.state is not _OPEN:
            return  # closing: websockets would refuse data frames now
        transport = ws.transport
        if not self.queue and transport.get_write_buffer_size() < self.high:
            if len(out) == 1:
                f = out[0]
                data = frame_header(len(f)) + f
            else:
                parts = []
                for f in out:
                    parts.append(frame_header(len(f)))
                    parts.append(f)
                data = b"".join(parts)
            try:
                transport.write(data)
            except Exception:  # the peer went away under us; the handler cleans up
                self.closed = True
            return
        for f in out:
            if len(self.queue) >= self.limit:
                self.abort(1008, "outbound queue full: the client stopped reading")
                return
            self.queue.append(f)
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
        """Close the connection with `code` (in the background), after the frames already sent."""
        if self.closed:
            return
        if self.out is not None:
            self.flush()
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
        except TimeoutError:
            transport.abort()
        except Exception:
            log.exception("close failed")
