"""One client connection's transport: a bounded outbound queue, and its close.

The session (who the client is, where it takes part) is
server/handlers/session.py; the inbound side (rate credits, the job that
waits, the frames behind it, the hello deadline) is server/net/inbound.py.

Sending never blocks the caller (the move path, the bus fan-out). Frames sent
during one event-loop iteration are collected per connection and written
together at the end of it by `Outbox` — header and payload of each frame
straight into the transport (server/net/wsconn.py), one write per socket per
iteration however many frames (an ack and a rival's progress often meet) —
while the socket keeps up. Once the transport buffer is above its high-water
mark, frames wait in a queue drained by a writer task that respects flow
control. A client whose backlog (transport buffer plus queue) passes
OUTBOUND_BYTES, or OUTBOUND_QUEUE frames, has stopped reading: it is closed
(1008) instead of buffered for ever; its TCP connection is dropped at once,
since a close frame could not get through. The backlogs of all lagging
connections together are bounded by OUTBOUND_TOTAL (server/net/backlog.py).

Replies go out in request order (docs/protocol.md §1) although a move's ack
comes back from Redis while a ping or a refusal is answered at once: the
move takes a slot (`later`) in the connection's ordered reply queue, and
every frame sent after it waits behind it until it is filled.

"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING

from websockets.protocol import State

from protocol.messages import CloseCode

from .backlog import Backlog
from .wsconn import frame_header

if TYPE_CHECKING:
    from ..metrics import Metrics
    from .wsconn import FastConnection

log = logging.getLogger("solrace.conn")

_OPEN = State.OPEN
CLOSE_LIMIT = 10.0  # seconds: the longest a close we start may take before the TCP connection is dropped


class Outbox:
    """Writes the frames each connection got during one loop iteration, once per socket."""

    __slots__ = ("pending", "scheduled", "loop", "backlog")

    def __init__(self, backlog: Backlog | None = None) -> None:
        self.pending: list[Conn] = []
        self.scheduled = False
        self.loop: asyncio.AbstractEventLoop | None = None
        # The process-wide bound on what slow connections hold (OUTBOUND_TOTAL).
        self.backlog = backlog if backlog is not None else Backlog(0)

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


class Later:
    """A reply slot in a connection's ordered reply queue (`Conn.later`).

    Called with the reply frame once it is known (or `settle()` when there is
    none); the frames queued behind it then go out in order. A second call
    sends like `Conn.send`.
    """

    __slots__ = ("conn", "frame", "ready")

    def __init__(self, conn: Conn) -> None:
        self.conn = conn
        self.frame: bytes | None = None
        self.ready = False

    def __call__(self, frame: bytes) -> None:
        if self.ready:
            self.conn.send(frame)
            return
        self.frame = frame
        self.ready = True
        self.conn._release()

    def settle(self) -> None:
        """No reply will come (the request failed unexpectedly): let the frames behind go."""
        if not self.ready:
            self.ready = True
            self.conn._release()


class Conn:
    __slots__ = (
        "ws",
        "addr",
        "queue",
        "queued",
        "lagging",
        "limit",
        "max_bytes",
        "high",
        "writer",
        "closed",
        "metrics",
        "out",
        "outbox",
        "order",
        "close_code",
        "close_reason",
        "__weakref__",
    )

    def __init__(
        self,
        ws: FastConnection,
        addr: str,
        *,
        outbound_queue: int,
        outbound_bytes: int = 0,
        metrics: Metrics | None = None,
        outbox: Outbox | None = None,
    ) -> None:
        self.ws = ws
        self.addr = addr
        # Frames waiting for a lagging socket (made on first use: an idle connection's empty
        # deque would cost it 760 bytes).
        self.queue: deque[bytes] | None = None
        self.queued = 0  # bytes in `queue`
        self.lagging = False  # its backlog is reported to the process-wide bound
        self.limit = outbound_queue
        self.max_bytes = outbound_bytes  # OUTBOUND_BYTES: transport buffer + queue; 0: no bound
        # Direct writes only while the transport buffer is below websockets' own
        # high-water mark; beyond it the writer task takes over.
        self.high = 2**15
        self.writer: asyncio.Task[None] | None = None
        self.closed = False
        self.metrics = metrics
        self.out: list[bytes] | None = None  # frames of this loop iteration, not yet written
        self.outbox = outbox if outbox is not None else Outbox()
        # The ordered reply queue: while a reply is awaited (`later`), every frame sent after
        # it waits here behind it, so requests are answered in the order sent.
        self.order: deque[bytes | Later] | None = None
        # The close this server started (`closing`), for the gateway's log line once it is gone.
        self.close_code: int | None = None
        self.close_reason = ""

    # --- sending -----------------------------------------------------------------------

    def later(self) -> Later:
        """A slot for a reply that comes later: frames sent from now on go out after it."""
        slot = Later(self)
        order = self.order
        if order is None:
            self.order = deque((slot,))
        else:
            order.append(slot)
        return slot

    def send(self, frame: bytes) -> None:
        """Queue one binary frame (written at the end of this loop iteration); never blocks, never raises."""
        if self.closed:
            return
        order = self.order
        if order:  # a reply sent earlier is still awaited: this frame goes out after it
            order.append(frame)
            return
        self._send(frame)

    def _release(self) -> None:
        """Send the frames at the head of the reply queue, up to the first reply still awaited."""
        order = self.order
        while order:
            head = order[0]
            if type(head) is bytes:
                frame: bytes | None = head
            else:
                assert isinstance(head, Later)
                if not head.ready:
                    return
                frame = head.frame
            order.popleft()
            if frame is not None and not self.closed:
                self._send(frame)
        if self.order is order:
            # Drained: dropped, not kept empty (760 bytes on every idle connection after its
            # welcome); the next `later` makes another.
            self.order = None

    def _send(self, frame: bytes) -> None:
        out = self.out
        if out is None:
            self.out = [frame]
            self.outbox.add(self)
            return
        out.append(frame)
        queue = self.queue
        if len(out) + (len(queue) if queue else 0) >= self.limit:
            try:
                full = self.ws.transport.get_write_buffer_size() >= self.high
            except Exception:
                full = True
            if full:
                self.abort(CloseCode.POLICY, "outbound queue full: the client stopped reading")

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
        buffered = transport.get_write_buffer_size()
        if not self.queue and buffered < self.high:
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
            if buffered:  # the socket lags: its backlog counts towards OUTBOUND_TOTAL
                self.lagging = True
                self.outbox.backlog.report(self, buffered + len(data))
            elif self.lagging:  # caught up
                self.lagging = False
                self.outbox.backlog.report(self, 0)
            return
        queued = self.queued
        queue = self.queue
        if queue is None:
            queue = self.queue = deque()
        for f in out:
            queued += len(f)
            if len(queue) >= self.limit or (self.max_bytes and buffered + queued > self.max_bytes):
                self.abort(CloseCode.POLICY, "outbound buffer full: the client stopped reading")
                return
            queue.append(f)
        self.queued = queued
        self.lagging = True
        self.outbox.backlog.report(self, buffered + queued)
        if self.is_closed():  # closed for the process-wide bound
            return
        if self.writer is None or self.writer.done():
            self.writer = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            queue = self.queue
            while queue and not self.closed:
                await self.ws.send(queue[0])
                self.queued -= len(queue.popleft())
                if not self.closed:
                    self.outbox.backlog.report(self, self.backlog())
        except Exception:
            self.closed = True
            self.outbox.backlog.forget(self)

    def backlog(self) -> int:
        """Bytes this connection holds now: its transport buffer plus its queue."""
        if self.closed:
            return 0
        try:
            return self.ws.transport.get_write_buffer_size() + self.queued
        except Exception:
            return self.queued

    def overflow(self) -> None:
        """Close now: the process's slow connections together hold more than OUTBOUND_TOTAL."""
        self.out = None  # nothing more for a client that is not reading
        self.abort(CloseCode.POLICY, "outbound buffer full: the client stopped reading")

    def is_closed(self) -> bool:
        return self.closed

    def abort(self, code: int, reason: str) -> None:
        """Close the connection with `code` (in the background), after the frames already sent."""
        if self.closed:
            return
        if self.ws.protocol.state is not _OPEN:
            # websockets is closing it already (it sent 1009, 1002...: that close is the one the
            # gateway counts and logs), e.g. a hello timeout while its close waits for the answer
            return
        if self.out is not None:
            self.flush()
            if self.is_closed():  # the flush found the peer gone
                return
        self.closed = True
        self.queue = None
        self.queued = 0
        self.order = None
        self.outbox.backlog.forget(self)
        self.closing(code, reason)
        asyncio.get_running_loop().create_task(self._close(code, reason))

    def closing(self, code: int, reason: str) -> None:
        """Note a close this server starts: counted now, logged by the gateway when the connection ends."""
        self.close_code = code
        self.close_reason = reason
        if self.metrics is not None:
            self.metrics.closes[code] += 1

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
            async with asyncio.timeout(CLOSE_LIMIT):
                await ws.close(code, reason)
        except TimeoutError:
            transport.abort()
        except Exception:
            log.exception("close failed")
