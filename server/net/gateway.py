"""The WebSocket endpoint and the HTTP side of the same port.

Per connection: a per-address connection limit, the hello phase (with its
timeout), then each frame is rate-limited, decoded (protocol/messages, one C
call that validates everything) and dispatched **synchronously, as it is
parsed** (server/wsconn.py hands us the frames): a move on the hot path is
validated, sent to Redis and done without a task switch. A request that must
wait (hello, the cold paths, a move that needs a reload) becomes the
connection's job, run by its handler task (`_worker`); frames arriving
meanwhile queue behind it (reading pauses at INBOUND_HIGH), so every
connection's requests are still answered in order. Bad input gets its error
code and changes nothing; an unexpected exception in a handler gets
`internal` and is logged; nothing dies on input. Oversized frames are closed
with 1009 by websockets itself (max_size).

HTTP (process_request): `/healthz` (200 when Redis answers, else 503),
`/metrics` (Prometheus text), and the web client's static files at `/`.
A request with `Upgrade: websocket` goes to the WebSocket handler whatever
its path (the protocol names `/ws`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import mimetypes
import socket
from collections import deque
from collections.abc import Awaitable
from functools import partial
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol import messages as m

from ..config import Settings
from ..core.races import RaceError
from ..metrics import Metrics
from ..service import Service
from .conn import INBOUND_HIGH, INBOUND_LOW, Conn, Outbox
from .wsconn import FastConnection

log = logging.getLogger("solrace.gateway")

encode = m.encode
decode_client = m.decode_client
_Move = m.Move
_Hello = m.Hello
DEFAULT_STATIC = Path(__file__).resolve().parents[2] / "client" / "web" / "static"


class Gateway:
    def __init__(self, settings: Settings, service: Service, metrics: Metrics) -> None:
        self.settings = settings
        self.service = service
        self.metrics = metrics
        self.per_addr: dict[str, int] = {}
        self.conns: set[Conn] = set()
        self.server: Server | None = None
        self.outbox = Outbox()
        self.static = Path(settings.static).resolve() if settings.static else DEFAULT_STATIC
        self.trusted = [
            ipaddress.ip_network(x.strip(), strict=False)
            for x in settings.trusted_proxies.split(",")
            if x.strip()
        ]

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
            create_connection=FastConnection,  # binary frames take a fast lane (server/wsconn.py)
        )
        return self.server

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    # --- HTTP ---------------------------------------------------------------------------------

    async def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            try:
                ok = await asyncio.wait_for(self.service.store.ping(), 2.0)
            except TimeoutError:
                ok = False
            return self._response(200 if ok else 503, b"ok\n" if ok else b"redis unreachable\n", "text/plain")
        if path == "/metrics":
            body = self.metrics.render(await self._races_by_status()).encode()
            return self._response(200, body, "text/plain; version=0.0.4")
        return self._static(path)

    async def _races_by_status(self) -> dict[str, int]:
        try:
            return await self.service.store.race_counts()
        except Exception:
            return {}

    def _static(self, path: str) -> Response:
        if path in ("", "/"):
            path = "/index.html"
        root = self.static
        try:
            target = (root / path.lstrip("/")).resolve()
        except (OSError, ValueError):
            return self._response(404, b"not found\n", "text/plain")
        if not target.is_relative_to(root) or not target.is_file():
            return self._response(404, b"not found\n", "text/plain")
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "image/svg+xml"):
            ctype += "; charset=utf-8"
        return self._response(200, target.read_bytes(), ctype)

    @staticmethod
    def _response(status: int, body: bytes, ctype: str) -> Response:
        headers = Headers(
            [("Content-Type", ctype), ("Content-Length", str(len(body))), ("Cache-Control", "no-cache")]
        )
        return Response(status, HTTPStatus(status).phrase, headers, body)

    # --- WebSocket ---------------------------------------------------------------------------------

    def _client_addr(self, ws: ServerConnection) -> str:
        """The client's address: the peer's, or the one a trusted proxy forwarded (X-Forwarded-For)."""
        addr = (ws.remote_address or ("?",))[0]
        if self.trusted and ws.request is not None:
            try:
                peer = ipaddress.ip_address(addr)
            except ValueError:
                return addr
            if any(peer in net for net in self.trusted):
                forwarded = ws.request.headers.get_all("X-Forwarded-For")
                if forwarded:
                    # The last hop is the one our proxy added; earlier ones are the client's word.
                    last = forwarded[-1].split(",")[-1].strip()
                    if last:
                        return last
        return addr

    async def handler(self, ws: FastConnection) -> None:  # type: ignore[override]
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
            rate=st.rate,
            burst=st.burst,
            outbound_queue=st.outbound_queue,
            metrics=self.metrics,
            outbox=self.outbox,
        )
        count = self.per_addr.get(addr, 0) + 1
        self.per_addr[addr] = count
        self.conns.add(conn)
        self.metrics.connections += 1
        self.metrics.connections_total += 1
        try:
            if count > st.max_conn_per_addr:
                self.metrics.closes[1008] += 1
                await ws.close(1008, "too many connections from this address")
                return
            loop = asyncio.get_running_loop()
            conn.hello_by = loop.time() + st.hello_timeout_s
            conn.timer = loop.call_later(st.hello_timeout_s, self._hello_expired, conn)
            ws.attach(partial(self._on_frame, conn), partial(self._wake, conn, False), conn.flush)
            await self._worker(conn)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection handler failed")
            conn.abort(1011, "internal error")
        finally:
            if conn.timer is not None:
                conn.timer.cancel()
                conn.timer = None
            self.conns.discard(conn)
            self.metrics.connections -= 1
            left = self.per_addr.get(addr, 1) - 1
            if left:
                self.per_addr[addr] = left
            else:
                self.per_addr.pop(addr, None)
            try:
                await self.service.disconnect(conn)
            except Exception:
                log.exception("disconnect cleanup failed")

    def _error(self, conn: Conn, rid: int | None, code: str, message: str, **extra: Any) -> None:
        self.metrics.errors[code] += 1
        conn.send(encode(m.Error(rid=rid, code=code, message=message, **extra)))

    def _limited(self, conn: Conn, wait_ms: float, frame: Any) -> None:
        rid = None
        try:
            rid = m.decode_client(frame).rid
        except Exception:
            pass
        self._error(
            conn,
            rid,
            "rate-limited",
            "message credits exhausted; the message was dropped",
            retry_ms=int(wait_ms) + 1,
        )
        if conn.limited > self.settings.rate_close:
            conn.abort(1008, "rate limit abused")

    # --- inbound: each frame handled as it is parsed, in order ---------------------------------

    def _on_frame(self, conn: Conn, data: bytes | str) -> None:
        """Called by the connection for each data frame, synchronously (server/wsconn.py)."""
        if conn.closed:
            return  # closing: drop until the peer's close frame arrives (reading goes on)
        if conn.busy:
            inq = conn.inq
            if inq is None:
                inq = conn.inq = deque()
            inq.append(data)
            if len(inq) >= INBOUND_HIGH and not conn.paused:
                conn.paused = True
                conn.ws.transport.pause_reading()
            return
        job = self._dispatch(conn, data)
        if job is not None:
            conn.busy = True
            conn.job = job
            self._wake(conn, True)

    @staticmethod
    def _wake(conn: Conn, work: bool) -> None:
        if not work:
            conn.lost = True
        w = conn.wake
        if w is not None and not w.done():
            w.set_result(work)

    async def _worker(self, conn: Conn) -> None:
        """The connection's handler task: runs the jobs (requests that wait), in arrival order."""
        loop = asyncio.get_running_loop()
        ws = conn.ws
        while True:
            if conn.job is None:
                if conn.lost:
                    return
                conn.wake = fut = loop.create_future()
                try:
                    if not await fut:
                        return
                finally:
                    conn.wake = None
            while True:
                job, conn.job = conn.job, None
                if job is not None:
                    await job
                inq = conn.inq
                if not inq:
                    break
                if conn.closed or conn.lost:
                    inq.clear()
                    break
                data = inq.popleft()
                if conn.paused and len(inq) <= INBOUND_LOW:
                    conn.paused = False
                    try:
                        ws.transport.resume_reading()
                    except Exception:
                        pass
                conn.job = self._dispatch(conn, data)
            conn.busy = False
            if conn.paused:
                conn.paused = False
                try:
                    ws.transport.resume_reading()
                except Exception:
                    pass
            if conn.pid is None and conn.hello_by is not None and loop.time() >= conn.hello_by:
                self._hello_expired(conn)

    def _hello_expired(self, conn: Conn) -> None:
        """HELLO_TIMEOUT: close with 1008 unless hello succeeded (or is being answered right now)."""
        if conn.pid is not None or conn.closed or conn.busy:
            return
        conn.abort(1008, "no hello in time")

    def _dispatch(self, conn: Conn, frame: bytes | str) -> Awaitable[None] | None:
        """Rate-limit, decode and handle one frame; returns the part that must wait, if any."""
        metrics = self.metrics
        metrics.messages_in += 1
        wait = conn.take_credit()
        if wait:
            self._limited(conn, wait, frame)
            return None
        try:
            msg = decode_client(frame)
        except m.ProtocolError as exc:
            metrics.errors[exc.code.value] += 1
            conn.send(encode(exc.to_error()))
            return None
        kind = type(msg)
        if kind is _Move and conn.pid is not None:
            try:
                slow = self.service.move(conn, msg)
            except Exception:
                log.exception("move failed")
                self._error(conn, msg.rid, "internal", "server fault; the request had no effect")
                return None
            return None if slow is None else self._run(conn, msg, slow)
        if conn.pid is None:
            if kind is not _Hello:
                self._error(conn, msg.rid, "hello-first", "say hello first")
                return None
            return self._hello(conn, msg)
        handler = self.service.handlers.get(kind)
        if handler is None:  # hello again
            self._error(conn, msg.rid, "bad-message", "hello was already said on this connection", field="t")
            return None
        return self._run(conn, msg, handler(conn, msg))

    async def _run(self, conn: Conn, msg: Any, work: Awaitable[Any]) -> None:
        try:
            reply = await work
            if reply is not None:
                conn.send(encode(reply))
        except RaceError as exc:
            self._error(conn, msg.rid, exc.code, exc.message, **exc.extra)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("handler of %s failed", type(msg).__name__)
            self._error(conn, msg.rid, "internal", "server fault; the request had no effect")

    async def _hello(self, conn: Conn, msg: m.Hello) -> None:
        try:
            welcome = await self.service.hello(conn, msg)
        except RaceError as exc:
            self._error(conn, msg.rid, exc.code, exc.message, **exc.extra)
            return
        except Exception:
            log.exception("hello failed")
            self._error(conn, msg.rid, "internal", "server fault; try again")
            return
        conn.send(encode(welcome))
        if conn.timer is not None:
            conn.timer.cancel()
            conn.timer = None

    async def close(self, timeout: float = 5.0) -> None:
        """Stop accepting, let in-flight moves land, close everyone with 1012."""
        if self.server is None:
            return
        self.server.server.close()  # stop accepting; open connections keep going
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.service.store.moves_pending() and loop.time() < end:
            await asyncio.sleep(0.01)
        for conn in list(self.conns):
            self.metrics.closes[1012] += 1
        self.outbox.flush()  # the acks of the last moves go out before the close frames
        self.server.close(close_connections=True, code=1012, reason="server restarting")
        try:
            await asyncio.wait_for(self.server.wait_closed(), timeout)
        except TimeoutError:
            log.warning("some connections did not close in time")
