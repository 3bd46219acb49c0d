"""A minimal pipelined Redis connection for the two hot paths: moves and pub/sub.

Why not redis-py here: with many concurrent callers redis-py costs ~100 µs of
Python per call (connection pool, command packing, response objects). The
move path needs one EVALSHA per accepted move and the fan-out one parse per
published event, so this module talks RESP directly: commands are packed by
hand and written in one `transport.write` per event-loop tick, replies are
parsed in C by hiredis and handed FIFO to callbacks. Everything else (the
cold paths) uses redis-py.

`Pipe`: request/response. `call(args, callback)` queues a command; all
commands of one tick go out in one write; Redis answers in order, so the
n-th reply belongs to the n-th callback. This is how consecutive moves of
one player stay ordered without waiting for each other. The pub/sub
connection, on the same wire helpers (`pack`, `open_connection`, `RespProtocol`),
is server/storage/pubsub.py.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import hiredis
from redis.asyncio.connection import parse_url

from .health import OutageLog

log = logging.getLogger("solrace.resp")


def redact_url(url: str) -> str:
    """A Redis URL fit for the log: a password in it (``redis://:pw@host``, also one per
    node of a cluster URL) becomes ``***``; logs are read by more people than the config."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    # The hosts end at the first '/' after the last '@' (before a query): a password may hold
    # a '/' of its own (base64), which must not end them before its '@'.
    last_at = rest.partition("?")[0].rfind("@")
    cut = rest.find("/", last_at + 1)
    netloc, slash, path = (rest, "", "") if cut < 0 else (rest[:cut], "/", rest[cut + 1 :])
    hosts = []
    for part in netloc.split(","):
        userinfo, at, host = part.rpartition("@")
        if at:
            user = userinfo.partition(":")[0]
            part = f"{user}:***@{host}" if ":" in userinfo else f"{user}@{host}"
        hosts.append(part)
    out = f"{scheme}://{','.join(hosts)}{slash}{path}"
    # A password may also come as a query parameter (redis-py's ?password=).
    if "password=" in out:
        out = re.sub(r"(password=)[^&]*", r"\1***", out)
    return out


#: How Redis refuses a client's credentials, by version and protocol: a wrong password, or none
#: where Redis asks for one (RESP3's HELLO says the latter in its own words).
AUTH_REFUSALS = (
    "NOAUTH",
    "WRONGPASS",
    "Authentication required",
    "HELLO must be called with the client already authenticated",
    "invalid username-password pair",
    "invalid password",
)


def url_has_password(url: str) -> bool:
    """Whether a Redis URL carries a password (`:pw@` in any host of it, or `?password=`)."""
    netloc = url.partition("://")[2].partition("/")[0]
    for part in netloc.split(","):
        userinfo, at, _host = part.rpartition("@")
        if at and userinfo.partition(":")[2]:
            return True
    return "password=" in url


#: What `solrace serve` and `solrace bots` log when --redis carries a password.
PASSWORD_FLAG_WARNING = (
    "--redis gives a password on the command line, which every local user can list: "
    "give the URL in SOLRACE_REDIS instead"
)


def auth_refusal(url: str, error: BaseException | str) -> str | None:
    """One sentence for Redis refusing `url`'s credentials (its password wrong, or missing where
    Redis asks for one), or None for any other failure. Never repeats the password."""
    text = str(error).strip()
    if not any(mark.lower() in text.lower() for mark in AUTH_REFUSALS):
        return None
    where = redact_url(url)
    if url_has_password(url):
        return f"Redis at {where} refused the password of the URL: {text}"
    return (
        f"Redis at {where} asks for a password and the URL gives none (redis://:PASSWORD@HOST:PORT/DB, "
        "in SOLRACE_REDIS rather than --redis: process lists show flags)"
    )


ReplyError = hiredis.ReplyError

#: After a READONLY reply the pipe drops its connection and reconnects this much later.
DEMOTED_RETRY_S = 0.5
#: REDIS_TIMEOUT_S's default (`--redis-timeout-s`): a pipe whose Redis answers nothing this
#: long while commands wait drops its connection; the waiting commands fail (docs/operations.md §7).
REPLY_TIMEOUT_S = 5.0
#: How many times per reply timeout the pipe's watchdog looks for a stall.
WATCH_CHECKS = 5


def pack(args: tuple[Any, ...] | list[Any]) -> bytes:
    """One RESP command (array of bulk strings)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if type(a) is bytes:
            b = a
        elif type(a) is str:
            b = a.encode()
        else:
            b = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


async def open_connection(url: str, protocol_factory: Callable[[], asyncio.Protocol]) -> Any:
    """Connect to the Redis of `url` (redis:// or unix://), AUTH and SELECT as it says."""
    kw = parse_url(url)
    loop = asyncio.get_running_loop()
    if "path" in kw:
        _, proto = await loop.create_unix_connection(protocol_factory, kw["path"])
    else:
        _, proto = await loop.create_connection(
            protocol_factory, kw.get("host", "127.0.0.1"), kw.get("port", 6379)
        )
    setup: list[list[Any]] = []
    if kw.get("password"):
        setup.append(
            ["AUTH", kw["username"], kw["password"]] if kw.get("username") else ["AUTH", kw["password"]]
        )
    if kw.get("db") and getattr(proto, "selects_db", True):
        setup.append(["SELECT", kw["db"]])
    return proto, setup


class ReplyLost(ConnectionError):
    """The connection was lost after a command was sent and before its reply came: Redis may
    or may not have run it (a write may be stored)."""


class RespProtocol(asyncio.Protocol):
    """A RESP connection: hiredis parses what arrives; `closed` resolves when it is lost."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's implements the interface without subclassing it).
        self.transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            import socket

            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass  # unix socket

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if not self.closed.done():
            self.closed.set_result(exc)


def is_readonly(reply: Any) -> bool:
    """A write refused by a replica: READONLY, or a script's write wrapped in its error."""
    if type(reply) is not ReplyError:
        return False
    text = str(reply)
    return text.startswith("READONLY") or "-READONLY " in text


class _PipeProtocol(RespProtocol):
    def __init__(self) -> None:
        super().__init__()
        self.waiters: deque[Callable[[Any], None]] = deque()
        self.out: list[bytes] = []
        self.flush_scheduled = False
        self.loop = asyncio.get_running_loop()
        self.demoted = False  # the server answered READONLY: it is a replica now
        self.received = 0  # data_received calls: the watchdog's sign that Redis is alive
        self.lost_why = ""  # why we dropped the connection ourselves, for the waiters' error

    def data_received(self, data: bytes) -> None:
        self.received += 1
        reader = self.reader
        reader.feed(data)
        waiters = self.waiters
        while True:
            reply = reader.gets()
            if reply is False:
                break
            cb = waiters.popleft()
            try:
                cb(reply)
            except Exception:  # a callback bug must not stall every later reply
                log.exception("redis reply callback failed")
            if type(reply) is ReplyError and not self.demoted and is_readonly(reply):
                # A primary demoted by a failover, still reachable: without Sentinel's client
                # kill nothing would ever close this connection, and every write would fail.
                # Drop it; the pipe reconnects to wherever its URL (or the sentinels) says.
                self.demoted = True
                if self.transport is not None:
                    self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        err = ReplyLost(f"redis connection lost: {self.lost_why or exc}")
        waiters, self.waiters = self.waiters, deque()
        self.out.clear()
        for cb in waiters:
            try:
                cb(err)
            except Exception:
                log.exception("redis reply callback failed")

    def call(self, packed: bytes, callback: Callable[[Any], None]) -> None:
        self.out.append(packed)
        self.waiters.append(callback)
        if not self.flush_scheduled:
            self.flush_scheduled = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        self.flush_scheduled = False
        if self.out and self.transport is not None:
            data = b"".join(self.out)
            self.out.clear()
            self.transport.write(data)


class Pipe:
    """A reconnecting pipelined connection. Callbacks get a reply, a ReplyError or a ConnectionError.

    While the connection is down, calls fail at once with ConnectionError (on
    the next loop iteration) and a background task reconnects with backoff
    (50 ms doubling to 1 s): a Redis restart costs the moves sent during the
    outage an `internal` error, never a hang. A Redis that stalls (stopped,
    swapping, a long command of another client) is treated the same once it
    has answered nothing for `reply_timeout` seconds while commands wait: the
    pipe drops the connection, so the waiting commands fail instead of hanging
    for as long as the stall lasts. A command whose connection is lost before
    its reply may or may not have been applied: the client finds out by its
    move count (`out-of-sync` then `state`, or a `dup` re-ack).
    """

    def __init__(self, url: str | Callable[[], str], reply_timeout: float = REPLY_TIMEOUT_S) -> None:
        self.url = url  # or where to connect next (the primary a sentinel names)
        self.reply_timeout = reply_timeout
        self._watchdog: asyncio.TimerHandle | None = None
        self.proto: _PipeProtocol | None = None
        self._connecting: asyncio.Future[None] | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._closed = False
        self.on_reconnect: Callable[[], None] | None = None  # called after a lost connection is back
        self.outages = OutageLog()

    @property
    def where(self) -> str:
        """The URL, for the log, without its password (a sentinel-named primary is logged by the lookup)."""
        return redact_url(self.url) if isinstance(self.url, str) else "the primary"

    async def connect(self) -> None:
        if self.proto is not None and self.proto.transport is not None:
            return
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        fut = self._connecting
        try:
            await asyncio.shield(fut)
        finally:
            if self._connecting is fut:
                self._connecting = None

    async def _connect(self) -> None:
        url = self.url() if callable(self.url) else self.url
        proto, setup = await open_connection(url, _PipeProtocol)
        # PING last: a redis-server still loading its AOF after a restart accepts connections
        # but answers LOADING; the pipe is back only once Redis can serve (else the outage
        # would end on the reconnection and begin again with the first move).
        for cmd in [*setup, ["PING"]]:
            try:
                # A stalled Redis still accepts connections (the kernel does): bound the wait.
                async with asyncio.timeout(self.reply_timeout):
                    reply = await _call_once(proto, cmd)
            except TimeoutError:
                reply = TimeoutError(f"no reply within {self.reply_timeout:g} s")
            if isinstance(reply, Exception):
                if proto.transport is not None:  # None: the connection was lost meanwhile
                    proto.transport.close()
                raise ConnectionError(f"redis setup {cmd[0]} failed: {reply}")
        self.proto = proto
        proto.closed.add_done_callback(lambda _f, p=proto: self._lost(p))
        self._watchdog = asyncio.get_running_loop().call_later(
            self.reply_timeout / WATCH_CHECKS, self._watch, proto, proto.received, 0
        )

    def _watch(self, proto: _PipeProtocol, seen: int, stalled: int) -> None:
        """Every reply_timeout / WATCH_CHECKS: drop a connection on which commands have waited
        `reply_timeout` with nothing received (one timer per pipe, nothing per command)."""
        if self._closed or self.proto is not proto or proto.transport is None:
            return
        stalled = stalled + 1 if proto.waiters and proto.received == seen else 0
        if stalled >= WATCH_CHECKS:
            proto.lost_why = f"no reply within {self.reply_timeout:g} s"
            log.warning(
                "redis at %s answered nothing for %g s with %d commands waiting; dropping the connection",
                self.where,
                self.reply_timeout,
                len(proto.waiters),
            )
            proto.transport.abort()  # connection_lost fails the waiters; _lost reconnects
            return
        self._watchdog = asyncio.get_running_loop().call_later(
            self.reply_timeout / WATCH_CHECKS, self._watch, proto, proto.received, stalled
        )

    def _lost(self, proto: _PipeProtocol) -> None:
        if self._closed or self.proto is not proto:
            return
        if proto.demoted:
            log.warning("redis at %s is a replica now (READONLY); reconnecting", self.where)
        else:
            log.log(self.outages.level(), "redis connection lost (%s); reconnecting", self.where)
        # After a demotion, give the failover a moment: reconnecting at once would reach the
        # same replica again (a plain URL) or a sentinel that has not switched yet.
        self._start_reconnect(DEMOTED_RETRY_S if proto.demoted else 0.0)

    def _start_reconnect(self, wait: float = 0.0) -> None:
        if self._closed or (self._reconnector is not None and not self._reconnector.done()):
            return
        self._reconnector = asyncio.ensure_future(self._reconnect_loop(wait))

    async def _reconnect_loop(self, wait: float = 0.0) -> None:
        if wait:
            await asyncio.sleep(wait)
        delay = 0.05
        failed = 0
        while not self._closed:
            try:
                await self.connect()
            except (OSError, ConnectionError) as exc:
                failed += 1  # an outage logs its first failed attempt, not every one
                log.log(
                    logging.INFO if failed == 1 else logging.DEBUG,
                    "redis reconnect failed (%s): %s",
                    self.where,
                    exc,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            log.info("redis connection back (%s)", self.where)
            if self.on_reconnect is not None:
                self.on_reconnect()
            return

    @property
    def ready(self) -> bool:
        return self.proto is not None and self.proto.transport is not None

    def call(self, args: tuple[Any, ...] | list[Any], callback: Callable[[Any], None]) -> None:
        """Queue a command (fails with ConnectionError while Redis is unreachable)."""
        self.call_packed(pack(args), callback)

    def call_packed(self, packed: bytes, callback: Callable[[Any], None], key: str | None = None) -> None:
        """Queue a packed command; `key` is for routing (ClusterPipe) and ignored here."""
        proto = self.proto
        if proto is not None and proto.transport is not None:
            proto.call(packed, callback)
            return
        # Down: fail fast (never queue without bound) and make sure we are reconnecting.
        if not self._closed:
            self._start_reconnect()
        asyncio.get_running_loop().call_soon(callback, ConnectionError("redis unavailable"))

    async def execute(self, *args: Any) -> Any:
        """Await one command (cold path convenience)."""
        await self.connect()
        assert self.proto is not None
        return await _call_once(self.proto, list(args))

    def pending(self) -> int:
        return len(self.proto.waiters) if self.proto is not None else 0

    def close(self) -> None:
        self._closed = True
        if self._reconnector is not None:
            self._reconnector.cancel()
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.close()
        self.proto = None


def _call_once(proto: _PipeProtocol, args: list[Any]) -> asyncio.Future[Any]:
    fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(reply: Any) -> None:
        if not fut.done():
            fut.set_result(reply)

    proto.call(pack(args), done)
    return fut
