"""From a client's frame to its answer: rate credits, decoding, the hello, the handlers.

The gateway (server/net/gateway.py) hands each data frame here as it is parsed, in the
connection's order. Each is rate-limited (the connection's credits until hello, then its
player's), decoded (protocol/messages, one C call that validates everything) and
dispatched **synchronously**: a move on the hot path is validated, sent to Redis and done
without a task switch. A request that must wait (hello, the cold paths, a move that needs
a reload) is returned to the gateway as the connection's job, which it runs before the
connection's next frame; the few the service marks `detached` (the solver's `hint` and
`analysis`) run beside that queue instead, at most ASIDE_MAX per connection, their reply
sent when ready, so that seconds of solving hold no ping and no move.

Bad input gets its error code and changes nothing; an unexpected exception in a handler
gets `internal` and is logged; nothing dies on input. Every error sent here is counted in
`solrace_errors_total`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.messages import CloseCode, ErrorCode

from ..config import Settings
from ..core.races import RaceError
from ..metrics import Metrics
from ..service import Service
from ..storage import is_outage
from .admission import Admission
from .conn import Conn, Later
from .inbound import Inbound

#: ASIDE_MAX: detached requests (hint, analysis) one connection may have waiting at once;
#: one more is answered `solver-busy` with ASIDE_RETRY_MS (docs/protocol.md §1, §7).
ASIDE_MAX = 2
ASIDE_RETRY_MS = 1000

# The gateway's name: a failed request is logged by the network edge, as are its connection's
# closes, and a log filter written for the edge keeps matching both.
log = logging.getLogger("solrace.gateway")

encode = m.encode
decode_client = m.decode_client
_Move = m.Move
_Hello = m.Hello


class Dispatcher:
    def __init__(self, settings: Settings, service: Service, metrics: Metrics, admission: Admission) -> None:
        self.settings = settings
        self.service = service
        self.metrics = metrics
        self.admission = admission

    def _error(self, conn: Conn, rid: int | None, code: ErrorCode, message: str, **extra: Any) -> None:
        self.metrics.errors[code] += 1
        conn.send(encode(m.Error(rid=rid, code=code, message=message, **extra)))

    def _limited(self, link: Inbound, wait_ms: float, frame: bytes | str) -> None:
        conn = link.conn
        # Only the rid is read (docs/protocol.md §6): whatever else is wrong with the frame.
        rid = m.probe_rid(frame) if isinstance(frame, bytes) else None
        self._error(
            conn,
            rid,
            ErrorCode.RATE_LIMITED,
            "message credits exhausted; the message was dropped",
            retry_ms=int(wait_ms) + 1,
        )
        if link.rate.limited >= self.settings.rate_close:
            conn.abort(CloseCode.POLICY, "rate limit abused")

    def dispatch(self, link: Inbound, frame: bytes | str) -> Awaitable[None] | None:
        """Rate-limit, decode and handle one frame; returns the part that must wait, if any."""
        metrics = self.metrics
        metrics.messages_in += 1
        conn = link.conn
        wait = link.rate.take()
        if wait:
            self._limited(link, wait, frame)
            return None
        try:
            if type(frame) is str:
                raise m.ProtocolError(ErrorCode.BAD_FRAME, "text frames are refused; send binary MessagePack")
            assert isinstance(frame, bytes)
            msg = decode_client(frame)
        except m.ProtocolError as exc:
            metrics.errors[exc.code] += 1
            conn.send(encode(exc.to_error()))
            return None
        kind = type(msg)
        session = link.session
        if kind is _Move and session.pid is not None:
            assert isinstance(msg, m.Move)
            try:
                slow = self.service.move(session, msg)
            except Exception:
                log.exception("move failed")
                self._error(conn, msg.rid, ErrorCode.INTERNAL, "server fault; the request had no effect")
                return None
            return None if slow is None else self._run(conn, msg, slow)
        if session.pid is None:
            if link.player is not None:
                # A hello was admitted, then refused or failed: the connection is closing
                # (queued frames may still come). Another hello would be counted again.
                return None
            if kind is not _Hello:
                self._error(conn, msg.rid, ErrorCode.HELLO_FIRST, "say hello first")
                return None
            assert isinstance(msg, m.Hello)
            return self._hello(link, msg)
        if kind is _Hello:
            self._error(
                conn, msg.rid, ErrorCode.BAD_MESSAGE, "hello was already said on this connection", field="t"
            )
            return None
        handler = self.service.handlers.get(kind)
        if handler is None:  # a message type of the protocol that no handler was installed for: a bug
            log.error("no handler for %s", kind.__name__)
            self._error(conn, msg.rid, ErrorCode.INTERNAL, "server fault; the request had no effect")
            return None
        if kind in self.service.detached:
            self._aside(link, msg, handler)
            return None
        return self._run(conn, msg, handler(session, msg))

    def _aside(self, link: Inbound, msg: Any, handler: Any) -> None:
        """Run a detached request beside the connection's queue: its reply goes out when ready."""
        if len(link.aside) >= ASIDE_MAX:
            self._error(
                link.conn,
                msg.rid,
                ErrorCode.SOLVER_BUSY,
                f"{ASIDE_MAX} such requests of this connection are still waiting: ask again",
                retry_ms=ASIDE_RETRY_MS,
            )
            return
        task = asyncio.ensure_future(self._run(link.conn, msg, handler(link.session, msg)))
        link.aside.add(task)
        task.add_done_callback(link.aside.discard)

    async def _run(self, conn: Conn, msg: Any, work: Awaitable[Any]) -> None:
        try:
            reply = await work
            if reply is not None:
                conn.send(encode(reply))
        except RaceError as exc:
            self._error(conn, msg.rid, exc.code, exc.message, **exc.extra)
        except ConnectionClosed:
            pass
        except Exception as exc:
            if is_outage(exc):
                self.service.store.health.failed(exc)  # one log line per outage, not per request
            else:
                log.exception("handler of %s failed", type(msg).__name__)
            self._error(conn, msg.rid, ErrorCode.INTERNAL, "server fault; the request had no effect")

    async def _hello(self, link: Inbound, msg: m.Hello) -> None:
        conn = link.conn
        # `welcome` is the first frame after hello (docs/protocol.md §2): once the hello has
        # registered the connection, an event of the player's races (a seat taken on another
        # connection meanwhile) can be sent to it before the welcome is; it waits behind it.
        slot = conn.later()
        try:
            await self._answer_hello(link, msg, slot)
        finally:
            slot.settle()  # no welcome (refused, closed): the frames behind it go

    async def _answer_hello(self, link: Inbound, msg: m.Hello, slot: Later) -> None:
        conn = link.conn

        async def admit(player: str) -> bool:
            """Counted as one of the player's connections (released when it closes), before
            hello changes anything of the player: refused, it changes nothing."""
            link.player = player
            # From now on the player's credits, whichever of its connections spends them.
            link.rate, admitted = await self.admission.player_joined(player)
            return admitted

        try:
            welcome = await self.service.hello(link.session, msg, admit)
        except Exception as exc:
            slot.settle()
            if isinstance(exc, RaceError):
                self._error(conn, msg.rid, exc.code, exc.message, **exc.extra)
            else:
                if is_outage(exc):
                    self.service.store.health.failed(exc)
                else:
                    log.exception("hello failed")
                self._error(conn, msg.rid, ErrorCode.INTERNAL, "server fault; try again")
            if link.player is not None:
                # Failed after it was admitted, with the connection half made one of the
                # player's: closed, so that its cleanup undoes all of that; a new one retries.
                conn.abort(CloseCode.INTERNAL, "hello failed: connect again")
            return
        if welcome is None:
            conn.abort(CloseCode.POLICY, "too many connections for this player")
            return
        slot(encode(welcome))
        if link.timer is not None:
            link.timer.cancel()
            link.timer = None
