"""The process's pub/sub connection, hand-kept on the wire helpers of server/storage/resp.py.

`Subscriber`: one pub/sub connection; `subscribe`/`unsubscribe` any time;
each message calls `on_message(channel, data)`, each subscription Redis
confirms `on_subscribed(channel)`; after a reconnect it resubscribes and,
once Redis confirmed that (a PING after the SUBSCRIBE), calls
`on_reconnect()` so the bus can fill gaps. Why not redis-py here: see resp.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from ..tasks import stop_task
from .health import OutageLog
from .resp import ReplyError, RespProtocol, open_connection, pack

log = logging.getLogger("solrace.resp")


class _SubProtocol(RespProtocol):
    selects_db = False  # pub/sub channels are global to the server

    def __init__(
        self,
        on_message: Callable[[bytes, bytes], None],
        on_subscribed: Callable[[bytes], None] | None = None,
    ) -> None:
        super().__init__()
        self.on_message = on_message
        self.on_subscribed = on_subscribed
        self.setup_waiters: deque[asyncio.Future[Any]] = deque()
        self.pongs: deque[asyncio.Future[Any]] = deque()  # PINGs after a (re)subscription

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        waiters, self.setup_waiters = self.setup_waiters, deque()
        pongs, self.pongs = self.pongs, deque()
        for fut in [*waiters, *pongs]:  # a setup command that will never be answered
            if not fut.done():
                fut.set_result(ConnectionError(f"redis connection lost: {exc}"))

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        on_message = self.on_message
        while True:
            reply = reader.gets()
            if reply is False:
                break
            if type(reply) is list and len(reply) == 3 and reply[0] == b"message":
                try:
                    on_message(reply[1], reply[2])
                except Exception:
                    log.exception("pub/sub handler failed")
            elif self.setup_waiters and not isinstance(reply, list):
                self.setup_waiters.popleft().set_result(reply)
            elif self.pongs and (
                (type(reply) is list and reply and reply[0] == b"pong") or type(reply) is ReplyError
            ):
                # The PING after a resubscription: every SUBSCRIBE before it is confirmed. An
                # error (LOADING: a restarted Redis still reading its AOF) fails the setup.
                self.pongs.popleft().set_result(reply)
            elif type(reply) is list and len(reply) == 3 and reply[0] == b"subscribe":
                # From here on the channel's messages reach us; what was published before did
                # not (the caller may want to read what it missed).
                if self.on_subscribed is not None:
                    try:
                        self.on_subscribed(reply[1])
                    except Exception:
                        log.exception("pub/sub subscribe handler failed")
            # unsubscribe confirmations need no action


class Subscriber:
    """One reconnecting pub/sub connection with a dynamic set of channels.

    `url` may be a callable returning the URL to try next: in a Redis Cluster
    any node delivers every PUBLISH (6.2 pub/sub is cluster-wide), so after
    losing one node the subscriber moves on to another.
    """

    def __init__(
        self,
        url: str | Callable[[], str],
        on_message: Callable[[bytes, bytes], None],
        on_reconnect: Callable[[], None] | None = None,
        on_subscribed: Callable[[bytes], None] | None = None,
    ) -> None:
        self.url = url
        self.on_message = on_message
        self.on_reconnect = on_reconnect
        self.on_subscribed = on_subscribed
        self.channels: set[str] = set()
        self.proto: _SubProtocol | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.connected = asyncio.Event()
        self._outgoing: list[bytes] = []  # (un)subscribe commands of this loop iteration
        self.outages = OutageLog()

    async def start(self) -> None:
        await self._connect()
        self._task = asyncio.create_task(self._keepalive())

    async def _connect(self) -> None:
        url = self.url() if callable(self.url) else self.url
        proto, setup = await open_connection(url, lambda: _SubProtocol(self.on_message, self.on_subscribed))
        for cmd in setup:
            if proto.transport is None:
                raise ConnectionError(f"redis connection lost before {cmd[0]}")
            fut = asyncio.get_running_loop().create_future()
            proto.setup_waiters.append(fut)
            proto.transport.write(pack(cmd))
            reply = await fut
            if isinstance(reply, Exception):
                raise ConnectionError(f"redis setup {cmd[0]} failed: {reply}")
        if proto.transport is None:
            raise ConnectionError("redis connection lost during its setup")
        self.proto = proto  # (un)subscriptions from here on go out on this connection
        if self.channels:
            # Resubscribe, and return only once Redis confirmed it: a PING's answer comes after
            # every SUBSCRIBE reply (each calls `on_subscribed` as it arrives). From then on
            # each event published on these channels reaches us, and `on_reconnect` (the gap
            # fill) must not start earlier: an event published between its read of a race
            # and Redis taking the SUBSCRIBE would be neither received nor filled.
            pong: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            proto.pongs.append(pong)
            proto.transport.write(pack(["SUBSCRIBE", *sorted(self.channels)]) + pack(["PING"]))
            reply = await pong
            if isinstance(reply, Exception):
                if proto.transport is not None:
                    proto.transport.close()
                raise ConnectionError(f"redis resubscription failed: {reply}")
        self.connected.set()

    async def _keepalive(self) -> None:
        """Reconnect after a lost connection; once Redis confirmed the resubscription, let the
        bus fill the gap."""
        while not self._stopping:
            assert self.proto is not None
            await self.proto.closed
            self.connected.clear()
            if self.stopping():
                return
            delay = 0.05
            while not self._stopping:
                try:
                    await self._connect()
                    break
                except (OSError, ConnectionError) as exc:
                    # an outage logs its first failed attempt, not every one
                    log.log(self.outages.level(), "pub/sub reconnect failed: %s", exc)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
            if self.on_reconnect is not None and not self._stopping:
                self.on_reconnect()

    def stopping(self) -> bool:
        return self._stopping

    def subscribe(self, *channels: str) -> None:
        new = [c for c in channels if c not in self.channels]
        if not new:
            return
        self.channels.update(new)
        self._send(["SUBSCRIBE", *new])

    def unsubscribe(self, *channels: str) -> None:
        gone = [c for c in channels if c in self.channels]
        if not gone:
            return
        self.channels.difference_update(gone)
        self._send(["UNSUBSCRIBE", *gone])

    def _send(self, cmd: list[str]) -> None:
        """Queue a command; those of one event-loop iteration go out in one write (a storm of hellos)."""
        if self.proto is None or self.proto.transport is None:
            return  # the reconnection subscribes to `channels`
        if not self._outgoing:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outgoing.append(pack(cmd))

    def _flush(self) -> None:
        out, self._outgoing = self._outgoing, []
        if out and self.proto is not None and self.proto.transport is not None:
            self.proto.transport.write(b"".join(out))

    async def close(self) -> None:
        self._stopping = True
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.close()
        await stop_task(self._task)
