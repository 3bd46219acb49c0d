"""websockets' server connection with a fast lane for the frames we care about.

websockets (asyncio API) does the HTTP side, the opening handshake, pings and
keepalive, the closing handshake and every protocol error; for each data
frame it would then run its generic parser, an assembler queue, a future and
a task wake-up before our code sees the message (~10 µs of Python per frame,
as much as the rest of a move). `FastConnection` keeps all of websockets and
short-cuts only the common case, in both directions:

Inbound: once the gateway has attached `on_frame`, while the connection is
OPEN, `data_received` cuts complete, final, masked **binary** frames of at
most MAX_FRAME bytes out of the stream itself (a few slices and websockets'
C unmasking) and calls `on_frame(payload)` synchronously. Every other frame
— ping, pong, close, text, fragments, anything malformed — is handed to
websockets' own parser **whole and in stream order**, so websockets' parser
only ever sees complete frames and is always at a frame boundary when we
take over again; an oversized frame is handed over with everything after it
(websockets closes with 1009, as before). Data frames that websockets parses
(text, fragmented messages, frames that arrived before `on_frame` was
attached) reach `on_frame` too, through `process_event`, in order; a text
frame arrives as `str` (server/net/dispatch.py answers `bad-frame`), unless it is not
valid UTF-8: websockets' own reader would fail the connection with 1007 (RFC
6455 §8.1), and since we bypass that reader, `on_bad_text` is called instead
(the gateway closes with 1007). If the connection
is not at a frame boundary when `on_frame` is attached (a client that sent
frames before the handshake response, against RFC 6455 §4.1), the fast lane
stays off for that connection: everything goes through websockets.

Outbound: `frame_header(n)` is the 2–4 byte header of an unmasked final
binary frame; server/net/conn.py writes header + payload to the transport itself
while the connection is OPEN (websockets keeps no state about data frames it
did not send: only fragmented sends, which we never do, have any).

There is no recv(): the gateway never reads through websockets' assembler.

Control frames cost like data frames: websockets answers each ping with a pong
written straight to the transport, outside server/net/conn.py's accounting, so
a peer flooding pings without reading would grow the process without bound.
Each ping or pong spends a message credit (`on_control`, the gateway's rate
limit: one over it is dropped, RATE_CLOSE of them close the connection), and
whatever websockets has written is checked against `max_backlog` (the
connection's OUTBOUND_BYTES): beyond it `on_backlog` closes the connection.

Accept: `gate` (server/net/admission.py `SocketGate`) counts each TCP connection
from `connection_made` to `connection_lost`, before a byte is read; over its
limits the connection is aborted there and then, unread and unanswered (the
gate tells the gateway, which counts and logs it).

Close: once websockets has failed the connection (1009, 1002, …) or answered
the peer's close frame, the TCP connection is dropped at its close deadline
(`--close-timeout-s`) if the peer has not closed it by then; websockets does
that only inside a close() call, which nothing makes in those cases.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from websockets.asyncio.server import ServerConnection
from websockets.frames import BINARY, CONT, PONG, TEXT
from websockets.protocol import OPEN
from websockets.speedups import apply_mask

if TYPE_CHECKING:
    from .admission import SocketGate

_HEADERS = [bytes((0x82, n)) for n in range(126)]
#: What websockets' own writes (pongs) may hold for a connection not yet attached.
PRE_ATTACH_BACKLOG = 2**18


def frame_header(n: int) -> bytes:
    """Header of an unmasked, final binary frame of `n` payload bytes (RFC 6455 §5.2)."""
    if n < 126:
        return _HEADERS[n]
    if n < 65536:
        return b"\x82\x7e" + n.to_bytes(2, "big")
    return b"\x82\x7f" + n.to_bytes(8, "big")


def _ignore(data: bytes | str) -> None:
    """`on_frame` once the peer has failed the connection (a text message that is not UTF-8)."""


def _at_frame_boundary(protocol: Any) -> bool:
    """True when websockets' parser holds no byte and waits for the start of a frame."""
    if protocol.reader.buffer:
        return False
    gen = protocol.parser
    while getattr(gen, "gi_yieldfrom", None) is not None:
        gen = gen.gi_yieldfrom
    code = getattr(gen, "gi_code", None)
    return code is not None and code.co_name == "at_eof"


class FastConnection(ServerConnection):
    """A ServerConnection that hands complete binary frames to `on_frame` (see module doc)."""

    # Slots, not instance attributes: websockets' connection already has close to the 30
    # attributes CPython's key-sharing instance dicts hold; more would give each of 10,000
    # idle connections a dict of its own (~2 KB each).
    __slots__ = (
        "on_frame",
        "on_lost",
        "flush",
        "on_control",
        "on_backlog",
        "on_bad_text",
        "max_backlog",
        "gated",
        "closer",
        "fast",
        "_buf",
        "_early",
        "_fragments",
        "_text",
        "_max",
    )

    #: Counts the connection from accept to close; serve() builds the connections itself, so the
    #: gateway sets this on a subclass of its own (None: nothing counted).
    gate: ClassVar[SocketGate | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gated: str | None = None  # the name `gate` counts this connection under
        self.closer: asyncio.TimerHandle | None = None  # drops the TCP connection at close_deadline
        self.on_frame: Callable[[bytes | str], None] | None = None
        self.on_lost: Callable[[], None] | None = None
        self.flush: Callable[[], None] | None = None  # writes our pending frames (server/net/conn.py)
        self.on_control: Callable[[], bool] | None = None  # a ping or pong came: False drops it
        self.on_backlog: Callable[[], None] | None = None  # websockets' writes passed max_backlog
        self.on_bad_text: Callable[[], None] | None = None  # a text message that is not UTF-8
        # Until attach sets the connection's own bound: pings can come before the gateway
        # has admitted the connection (while it counts it in Redis).
        self.max_backlog = PRE_ATTACH_BACKLOG
        self.fast = False  # the fast lane is on (set by attach)
        self._buf = b""  # the start of an incomplete frame (fast lane only)
        # Data frames parsed before attach; None stands for a text message that is not UTF-8.
        self._early: list[bytes | str | None] | None = None
        self._fragments: list[bytes] | None = None
        self._text = False
        self._max = self.protocol.max_message_size

    def attach(
        self,
        on_frame: Callable[[bytes | str], None],
        on_lost: Callable[[], None],
        flush: Callable[[], None] | None = None,
        *,
        on_control: Callable[[], bool] | None = None,
        on_backlog: Callable[[], None] | None = None,
        on_bad_text: Callable[[], None] | None = None,
        max_backlog: int = 0,
    ) -> None:
        """Start delivering data frames to `on_frame`; `on_lost()` when the TCP connection is gone.

        `flush()` is called before websockets gets any input, so that the replies to the
        frames before a ping or a close go out before websockets' pong or close frame.
        `on_control`, `on_backlog`, `max_backlog`: the bounds of control frames (module doc).
        `on_bad_text()`: a text message was not valid UTF-8 (RFC 6455 §8.1: close with 1007);
        no frame is delivered after it.
        """
        self.on_frame = on_frame
        self.on_lost = on_lost
        self.flush = flush
        self.on_control = on_control
        self.on_backlog = on_backlog
        self.on_bad_text = on_bad_text
        self.max_backlog = max_backlog
        self.fast = (
            self._max is not None
            and self.protocol.state is OPEN
            and self.protocol.current_size is None
            and _at_frame_boundary(self.protocol)
        )
        early, self._early = self._early, None
        for data in early or ():
            if data is None:
                self._bad_text()
                break
            on_frame(data)
        if self.connection_lost_waiter.done():  # gone before we attached
            self.on_lost = None
            on_lost()

    # --- inbound -------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if not self.fast:
            self._to_websockets(data)
            return
        protocol = self.protocol
        if protocol.state is not OPEN:
            self.fast = False
            rest, self._buf = self._buf + data, b""
            self._to_websockets(rest)
            return
        buf = self._buf + data if self._buf else data
        self._buf = b""
        end = len(buf)
        i = 0
        on_frame = self.on_frame
        limit = self._max
        # The fast lane runs only once attached, with a frame size limit (attach).
        assert limit is not None and on_frame is not None
        while True:
            if end - i < 2:
                break
            b0 = buf[i]
            b1 = buf[i + 1]
            n = b1 & 0x7F
            if n < 126:
                start = i + 2
            elif n == 126:
                if end - i < 4:
                    break
                n = (buf[i + 2] << 8) | buf[i + 3]
                start = i + 4
            else:
                if end - i < 10:
                    break
                n = int.from_bytes(buf[i + 2 : i + 10], "big")
                start = i + 10
            if n > limit:
                # Oversized: websockets reads the header and fails the connection (1009).
                self.fast = False
                self._to_websockets(buf[i:])
                return
            masked = b1 & 0x80
            if masked:
                start += 4
            stop = start + n
            if stop > end:
                break
            if b0 == 0x82 and masked and protocol.current_size is None:
                payload = apply_mask(buf[start:stop], buf[start - 4 : start]) if n else b""
                i = stop
                try:
                    on_frame(payload)
                except Exception:  # the gateway handles its errors; never break the stream
                    self.logger.error("frame handler failed", exc_info=True)
                if protocol.state is not OPEN:  # e.g. a close started by the handler
                    break
                continue
            # Anything else, whole: websockets parses it (ping, pong, close, text, fragments,
            # protocol errors) and answers as it always does; a ping or pong over the rate is dropped.
            control = self.on_control
            if (b0 & 0x0F) in (0x9, 0xA) and control is not None and not control():
                i = stop
                if protocol.state is not OPEN or self.transport.is_closing():
                    break
                continue
            self._to_websockets(buf[i:stop])
            i = stop
            if self.transport.is_closing():  # dropped (on_backlog): read no further
                return
            if protocol.state is not OPEN:
                self.fast = False
                if i < end:
                    self._to_websockets(buf[i:])
                return
        if i < end:
            self._buf = buf[i:] if i else buf
            if protocol.state is not OPEN:
                self.fast = False
                rest, self._buf = self._buf, b""
                self._to_websockets(rest)

    def _to_websockets(self, data: bytes) -> None:
        flush = self.flush
        if flush is not None:
            flush()
        super().data_received(data)
        if self.close_deadline is not None and self.closer is None:
            # websockets failed the connection (1009, 1002, …) or answered the peer's close:
            # it waits close_timeout for the peer's TCP close only inside a close() call, which
            # nothing makes then; a peer that never closed would hold the socket for ever.
            self.closer = self.loop.call_at(self.close_deadline, self.transport.abort)
        # websockets' own writes (pongs, its close frame) bypass server/net/conn.py's bounds.
        if self.max_backlog and self.transport.get_write_buffer_size() > self.max_backlog:
            on_backlog, self.on_backlog, self.max_backlog = self.on_backlog, None, 0
            if on_backlog is not None:
                on_backlog()
            else:  # not attached yet: nobody to tell
                self.transport.abort()

    def process_event(self, event: Any) -> None:
        if self.request is None:  # the handshake request
            super().process_event(event)
            return
        op = event.opcode
        if op is BINARY or op is TEXT:
            if event.fin:
                self._deliver(bytes(event.data), op is TEXT)
            else:
                self._fragments = [bytes(event.data)]
                self._text = op is TEXT
        elif op is CONT:
            if self._fragments is not None:
                self._fragments.append(bytes(event.data))
                if event.fin:
                    data, self._fragments = b"".join(self._fragments), None
                    self._deliver(data, self._text)
        elif op is PONG:
            self.acknowledge_pings(bytes(event.data))

    def _deliver(self, data: bytes, text: bool) -> None:
        msg: bytes | str | None = data
        if text:
            try:
                msg = data.decode()
            except UnicodeDecodeError:
                msg = None
        if self.on_frame is None:
            if self._early is None:
                self._early = []
            if not self._early or self._early[-1] is not None:  # nothing counts after it
                self._early.append(msg)
            return
        if msg is None:
            self._bad_text()
            return
        try:
            self.on_frame(msg)
        except Exception:
            self.logger.error("frame handler failed", exc_info=True)

    def _bad_text(self) -> None:
        on_bad_text, self.on_bad_text = self.on_bad_text, None
        self.on_frame = _ignore  # RFC 6455 §7.1.7: nothing more of this peer is processed
        if on_bad_text is None:  # nobody to close it with 1007: drop it
            self.transport.abort()
            return
        try:
            on_bad_text()
        except Exception:
            self.logger.error("bad text handler failed", exc_info=True)
            self.transport.abort()

    # --- accept and close of the TCP connection --------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        gate = self.gate
        if gate is None:
            return
        peer = transport.get_extra_info("peername")
        name = gate.accept(str(peer[0]) if isinstance(peer, tuple) and peer else "?")
        if name is None:
            # Over the limit: nothing is read (reading starts after this returns) and nothing
            # is answered; the handshake task websockets started sees the connection lost.
            self.transport.abort()
            return
        self.gated = name

    def connection_lost(self, exc: Exception | None) -> None:
        if self.closer is not None:
            self.closer.cancel()
            self.closer = None
        gated, self.gated = self.gated, None
        if gated is not None and self.gate is not None:
            self.gate.release(gated)
        super().connection_lost(exc)
        on_lost = self.on_lost
        if on_lost is not None:
            self.on_lost = None
            on_lost()
