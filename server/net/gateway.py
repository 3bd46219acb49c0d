"""The WebSocket endpoint and the HTTP side of the same port: accepting connections,
each connection's life, and the order in which its requests are run.

Per connection: from the moment it is accepted, a count of TCP connections
per peer address and in all (MAX_CONN_PER_ADDR + MAX_PENDING_PER_ADDR,
MAX_CONNECTIONS: server/net/admission.py `SocketGate`, checked in
server/net/wsconn.py before a byte is read); once the WebSocket is open, a
per-address connection limit (MAX_CONN_PER_ADDR, checked
here at once and then over all processes in Redis), the hello phase (with
its timeout; then MAX_CONN_PER_PLAYER over all processes, and the player's
rate credits, shared by its connections on this process). server/net/wsconn.py
hands us each data frame as it is parsed, and server/net/dispatch.py handles it
**synchronously** (rate credits, decoding, the move's fast path, the handlers). A
request that must wait (hello, the cold paths, a move that needs a reload) becomes
the connection's job, run by its handler task (`_worker`); frames arriving
meanwhile queue behind it (reading pauses at INBOUND_HIGH), so every
connection's requests are still answered in order, but for the few the
service marks `detached` (the solver's: server/net/dispatch.py). Oversized frames are closed
with 1009 by websockets itself (max_size); a text message that is not UTF-8
with 1007 (RFC 6455 §8.1), counted like our own closes.

Every close the server starts because of what a client did (1007, 1008:
limits, hello timeout, slow client; websockets' own 1009 oversized frame,
1002 malformed frame, 1011 keepalive timeout) is counted in
`solrace_closes_total` and logged at INFO with the client's address, the
code and the reason, once the connection is gone (`handler`'s end reads
which close it was: `Conn.close_code` for ours, websockets' protocol state
for its own). `CloseLog` bounds those lines so that a flood of bad clients
cannot flood the log. Normal closes (1000, 1001, the 1012 of a restart) are
not logged. A TCP connection the socket gate drops at accept is logged the same
way (`refused at accept: too many connections from ADDR ...`) and counted in
`solrace_accept_refused_total`.

HTTP on the same port (`/healthz`, `/metrics`, the web client) is
server/net/http.py.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections import deque
from collections.abc import Iterable
from functools import partial
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode as WsCloseCode
from websockets.http11 import Request, Response
from websockets.protocol import State

from protocol.messages import CloseCode

from ..config import Settings
from ..core.session import Session
from ..metrics import Metrics
from ..service import Service
from .addresses import client_address, parse_networks
from .admission import Admission, SocketGate
from .backlog import Backlog
from .broadcast import broadcast_latest
from .close_log import CloseLog
from .conn import Conn, Outbox
from .dispatch import Dispatcher
from .http import Http, SecureProtocol
from .inbound import INBOUND_HIGH, INBOUND_LOW, Inbound
from .ratelimit import RateLimit
from .wsconn import FastConnection

LISTEN_BACKLOG = 4096  # capped by the kernel's net.core.somaxconn
#: What websockets' own writes (pongs) may hold for a connection when OUTBOUND_BYTES is 0
#: (no bound on our frames): a ping flood that reads nothing must still end.
CONTROL_BACKLOG = 2**18

#: Closes of a normal kind, neither logged nor counted per connection: the client's own
#: (1000, 1001) and a restart's (1012, counted by `Gateway.close`).
NORMAL_CLOSES = frozenset({WsCloseCode.NORMAL_CLOSURE, WsCloseCode.GOING_AWAY, CloseCode.RESTART})

log = logging.getLogger("solrace.gateway")

#: How long a connection closed for abuse (`_drop`) keeps its socket after its close frame, so
#: that the frame reaches a client that reads (seconds; nothing is read from it meanwhile).
DROP_LINGER = 1.0


def _connection_class(gate: SocketGate) -> type[FastConnection]:
    """The connection class of one server: serve() builds each connection from a class, with
    arguments of its own, so this server's socket gate is a class attribute."""

    class Connection(FastConnection):
        __slots__ = ()

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # serve() builds websockets' own protocol object too: this one adds our security
            # headers to the responses websockets makes itself (server/net/http.py).
            self.protocol.__class__ = SecureProtocol

    Connection.gate = gate
    return Connection


class Gateway:
    def __init__(
        self, settings: Settings, service: Service, metrics: Metrics, *, max_connections: int = 0
    ) -> None:
        """`max_connections`: the cap of TCP connections (server/app.py works it out from
        MAX_CONNECTIONS and the open-files limit); 0: MAX_CONNECTIONS, or none if that is 0 too."""
        self.settings = settings
        self.service = service
        self.metrics = metrics
        self.admission = Admission(settings, service.store.sessions, service.store.health)
        # Bound once: the frame path looks it up for every frame.
        self._dispatch = Dispatcher(settings, service, metrics, self.admission).dispatch
        self.conns: set[Conn] = set()
        self.server: Server | None = None
        self.outbox = Outbox(Backlog(settings.outbound_total))
        self.http = Http(settings, service.store, metrics)
        self.close_log = CloseLog()
        service.broadcast_latest = self._broadcast_latest
        self.trusted = parse_networks(settings.trusted_proxies, "trusted-proxies")
        cap = max_connections or settings.max_connections
        self.gate = SocketGate(
            per_addr=settings.max_conn_per_addr + settings.max_pending_per_addr,
            total=cap or sys.maxsize,
            trusted=self.trusted,
            on_refused=self._refused_at_accept,
        )

    async def start(self) -> Server:
        self.server = await serve(
            self.handler,
            self.settings.host,
            self.settings.port,
            compression=None,  # permessage-deflate costs ~50 KiB per socket and CPU per frame
            max_size=self.settings.max_frame,  # larger frames: close 1009
            process_request=self.process_request,
            ping_interval=self.settings.ping_interval_s or None,
            ping_timeout=self.settings.ping_timeout_s or None,
            close_timeout=self.settings.close_timeout_s,
            server_header="solrace",
            # Binary frames take a fast lane, and sockets are counted from accept (server/net/wsconn.py).
            create_connection=_connection_class(self.gate),
            # A reconnect storm opens thousands of connections at once: with asyncio's default
            # of 100 the kernel drops the rest's SYNs and they retry after 1, 3, 7 s.
            backlog=LISTEN_BACKLOG,
        )
        self.admission.start()
        return self.server

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    @staticmethod
    def _broadcast_latest(sessions: Iterable[Session], frame: bytes) -> None:
        broadcast_latest((s.transport for s in sessions), frame)

    async def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        return await self.http.process_request(connection, request)

    # --- WebSocket ---------------------------------------------------------------------------------

    def _client_addr(self, ws: ServerConnection) -> str:
        """The client's address: the peer's, or the one a trusted proxy forwarded (X-Forwarded-For)."""
        peer = str((ws.remote_address or ("?",))[0])
        if ws.request is None:
            return peer
        return client_address(peer, ws.request.headers.get_all("X-Forwarded-For"), self.trusted)

    async def handler(self, ws: ServerConnection) -> None:
        assert isinstance(ws, FastConnection)  # serve(create_connection=FastConnection)
        st = self.settings
        addr = self._client_addr(ws)
        if st.sndbuf:
            # A fixed kernel buffer (no autotuning to megabytes): what a client that stops
            # reading can hold is bounded, so OUTBOUND_QUEUE notices it soon (docs/operations.md).
            sock = ws.transport.get_extra_info("socket")
            if sock is not None:
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, st.sndbuf)
                except OSError:
                    pass
        conn = Conn(
            ws,
            addr,
            outbound_queue=st.outbound_queue,
            outbound_bytes=st.outbound_bytes,
            metrics=self.metrics,
            outbox=self.outbox,
        )
        link = Inbound(conn, RateLimit(st.rate, st.burst))
        self.conns.add(conn)
        self.metrics.connections += 1
        self.metrics.connections_total += 1
        counted = False
        try:
            admitted, counted = await self.admission.connect(addr)
            if not admitted:
                reason = "too many connections from this address"
                conn.closing(CloseCode.POLICY, reason)
                await ws.close(CloseCode.POLICY, reason)
                return
            loop = asyncio.get_running_loop()
            link.hello_by = loop.time() + st.hello_timeout_s
            link.timer = loop.call_later(st.hello_timeout_s, self._hello_expired, link)
            ws.attach(
                partial(self._on_frame, link),
                partial(self._wake, link, False),
                conn.flush,
                on_control=partial(self._on_control, link),
                on_backlog=partial(self._drop, conn, "outbound queue full: the client stopped reading"),
                on_bad_text=partial(conn.abort, WsCloseCode.INVALID_DATA, "invalid UTF-8 in a text frame"),
                max_backlog=st.outbound_bytes or CONTROL_BACKLOG,
            )
            await self._worker(link)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection handler failed")
            conn.abort(CloseCode.INTERNAL, "internal error")
        finally:
            if link.timer is not None:
                link.timer.cancel()
                link.timer = None
            for task in list(link.aside):  # nobody is there to read their replies
                task.cancel()
            self.conns.discard(conn)
            self.outbox.backlog.forget(conn)
            self.metrics.connections -= 1
            self._closed(conn)
            await self.admission.disconnect(addr, counted, link.player)
            try:
                await self.service.disconnect(link.session)
            except Exception:
                log.exception("disconnect cleanup failed")

    def _refused_at_accept(self, addr: str, limit: str, why: str) -> None:
        """A TCP connection dropped at accept by the socket gate: counted, and logged like a
        close (`CloseLog`'s bounds: a flood of them is a few lines)."""
        self.metrics.accept_refused[limit] += 1
        self.close_log.refused(addr, why)

    def _closed(self, conn: Conn) -> None:
        """The connection is gone: log the close the server started, if any and not a normal one.
        Ours are noted by `Conn.closing`; websockets' own (1009 for max_size, 1002, 1011 keepalive
        timeout) only in its protocol state: the close frame it sent first, not echoed."""
        code, reason = conn.close_code, conn.close_reason
        if code is None:
            protocol = conn.ws.protocol
            sent = protocol.close_sent
            if sent is None or protocol.close_rcvd_then_sent or sent.code in NORMAL_CLOSES:
                return
            code, reason = sent.code, sent.reason
            self.metrics.closes[code] += 1
        if code not in NORMAL_CLOSES:
            self.close_log.closed(conn.addr, code, reason)

    def _on_control(self, link: Inbound) -> bool:
        """A ping or pong spends a message credit like any frame; over the rate it is dropped
        (no error message: it has no rid), and RATE_CLOSE of them close the connection."""
        if not link.rate.take():
            return True
        if link.rate.limited >= self.settings.rate_close:
            self._drop(link.conn, "rate limit abused")
        return False

    @staticmethod
    def _drop(conn: Conn, reason: str) -> None:
        """Close (1008, counted) without a close handshake: a flood goes on during one, and a
        client that reads nothing would never see the close frame. The frame is written and
        the sending side shut at once; nothing more is read, and the TCP connection is
        dropped DROP_LINGER later. Dropping it at once lost the frame: closing a socket with
        unread input sends a reset, which discards what the client had not read yet."""
        ws = conn.ws
        transport = ws.transport
        conn.abort(CloseCode.POLICY, reason)
        # Still open: `abort` only scheduled its close (one websockets started is left to it).
        if conn.closed and ws.protocol.state is State.OPEN and transport.can_write_eof():
            ws.protocol.send_close(CloseCode.POLICY, reason)
            transport.write(b"".join(ws.protocol.data_to_send()))
            transport.pause_reading()
            transport.write_eof()
            asyncio.get_running_loop().call_later(DROP_LINGER, transport.abort)
            return
        transport.abort()

    # --- inbound: each frame handled as it is parsed (server/net/dispatch.py), in order -------

    def _on_frame(self, link: Inbound, data: bytes | str) -> None:
        """Called by the connection for each data frame, synchronously (server/net/wsconn.py)."""
        if link.conn.closed:
            return  # closing: drop until the peer's close frame arrives (reading goes on)
        if link.busy:
            inq = link.inq
            if inq is None:
                inq = link.inq = deque()
            inq.append(data)
            if len(inq) >= INBOUND_HIGH and not link.paused:
                link.paused = True
                link.conn.ws.transport.pause_reading()
            return
        job = self._dispatch(link, data)
        if job is not None:
            link.busy = True
            link.job = job
            self._wake(link, True)

    @staticmethod
    def _wake(link: Inbound, work: bool) -> None:
        if not work:
            link.lost = True
        w = link.wake
        if w is not None and not w.done():
            w.set_result(work)

    async def _worker(self, link: Inbound) -> None:
        """The connection's handler task: runs the jobs (requests that wait), in arrival order."""
        loop = asyncio.get_running_loop()
        conn = link.conn
        ws = conn.ws
        while True:
            if link.job is None:
                if link.lost:
                    return
                link.wake = fut = loop.create_future()
                try:
                    if not await fut:
                        return
                finally:
                    link.wake = None
            while True:
                job, link.job = link.job, None
                if job is not None:
                    await job
                inq = link.inq
                if not inq:
                    break
                if conn.closed or link.lost:
                    inq.clear()
                    break
                data = inq.popleft()
                if link.paused and len(inq) <= INBOUND_LOW:
                    link.paused = False
                    try:
                        ws.transport.resume_reading()
                    except Exception:
                        pass
                link.job = self._dispatch(link, data)
            link.busy = False
            if link.paused:
                link.paused = False
                try:
                    ws.transport.resume_reading()
                except Exception:
                    pass
            if link.session.pid is None and link.hello_by is not None and loop.time() >= link.hello_by:
                self._hello_expired(link)

    def _hello_expired(self, link: Inbound) -> None:
        """HELLO_TIMEOUT: close with 1008 unless hello succeeded (or is being answered right now)."""
        if link.session.pid is not None or link.conn.closed or link.busy:
            return
        link.conn.abort(CloseCode.POLICY, "no hello in time")

    def stop_accepting(self) -> None:
        """Close the listening socket (new connections go to the other processes);
        open connections keep going."""
        if self.server is not None:
            self.server.server.close()

    async def close(self, timeout: float = 5.0) -> None:
        """Stop accepting, let in-flight moves land, close everyone with 1012."""
        if self.server is None:
            return
        self.admission.stop()
        self.stop_accepting()
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.service.store.moves_pending() and loop.time() < end:
            await asyncio.sleep(0.01)
        self.metrics.closes[CloseCode.RESTART] += len(self.conns)
        self.outbox.flush()  # the acks of the last moves go out before the close frames
        self.server.close(close_connections=True, code=CloseCode.RESTART, reason="server restarting")
        try:
            async with asyncio.timeout(timeout):
                await self.server.wait_closed()
        except TimeoutError:
            log.warning("some connections did not close in time")
        await self.admission.close()  # the closed connections' counts, written before Redis goes
        self.close_log.flush()
