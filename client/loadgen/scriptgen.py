"""The Redis baseline: a minimal scripted call, driven like the moves, on the server's own redis-server.

What a move costs Redis is only meaningful beside what Redis needs for the
least a scripted call can be: `EVALSHA` of a one-line script (``return 1``)
with one key and one argument the size of a move frame. `ScriptGen` drives
that call with the same number of callers as the bots and the same open or
closed loop (`EchoConn`'s logic, reused), over one pipelined connection whose
calls of one event-loop tick go out in one write, as the server's move pipe
does. Its windows alternate with the echo's and the server's in each phase,
so the redis-server CPU per call is measured beside its CPU per move under
the same load from the rest of the machine.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import hiredis

from server.storage.data_folder import PASSWORD_NAME

from .echogen import EchoConn, echo_conns
from .pacing import Generator

SCRIPT = b"return 1"
# The least a scripted move could do: one stored write (its AOF entry wrapped in MULTI/EXEC).
SCRIPT_HSET = b"redis.call('HSET', KEYS[1], 'x', ARGV[1]) return 1"
BASELINES = {"call": SCRIPT, "hset": SCRIPT_HSET}


def _pack(*args: bytes) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def redis_url(redis_pid: int, url: str = "") -> str:
    """The URL of the server's Redis: the one given, or the private redis-server's, from its
    process title ("redis-server 127.0.0.1:PORT") and the password in its data folder (its
    working directory, DATA/redis.pass)."""
    if url:
        return url
    with open(f"/proc/{redis_pid}/cmdline", "rb") as f:
        title = f.read().replace(b"\0", b" ").decode(errors="replace")
    m = re.search(r"([0-9.]+):(\d+)", title)
    if not m:
        raise RuntimeError(f"cannot find the port of redis-server {redis_pid} in {title!r}")
    try:
        password = (Path(f"/proc/{redis_pid}/cwd") / PASSWORD_NAME).read_text().strip()
    except OSError:
        password = ""
    auth = f":{password}@" if password else ""
    return f"redis://{auth}{m.group(1)}:{m.group(2)}/0"


class _Pipe(asyncio.Protocol):
    """One pipelined Redis connection: calls of one tick written at once, replies in order."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        self.waiting: deque[Callable[[Any], None]] = deque()
        self.out: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            self.waiting.popleft()(reply)

    def call(self, packed: bytes, callback: Callable[[Any], None]) -> None:
        if not self.out:
            asyncio.get_running_loop().call_soon(self._flush)
        self.out.append(packed)
        self.waiting.append(callback)

    def _flush(self) -> None:
        if self.out and self.transport is not None:
            self.transport.write(b"".join(self.out))
        self.out = []


class _Caller:
    """Stands in for a WebSocket connection of `EchoConn`: a "frame" is one scripted call."""

    __slots__ = ("pipe", "cmd", "on_reply")

    def __init__(self, pipe: _Pipe, cmd: bytes, on_reply: Callable[[Any], None]) -> None:
        self.pipe, self.cmd, self.on_reply = pipe, cmd, on_reply

    def send_frame(self, _frame: bytes) -> None:
        self.pipe.call(self.cmd, self.on_reply)

    def close(self) -> None:
        pass


def _replied(conn: EchoConn) -> Callable[[Any], None]:
    def on_reply(_reply: Any) -> None:
        conn.on_message(b"")

    return on_reply


class ScriptGen(Generator):
    def __init__(self, url: str, callers: int, payload: bytes, seed: int = 3, script: bytes = SCRIPT) -> None:
        super().__init__()
        self.url = url
        self.script = script
        self.payload = payload
        self.conns = echo_conns(self.rec, self.mode, callers, payload, seed)
        self.pipe: _Pipe | None = None

    def senders(self) -> list[EchoConn]:
        return self.conns

    async def setup(self) -> None:
        loop = asyncio.get_running_loop()
        where = urlsplit(self.url)
        _t, pipe = await loop.create_connection(_Pipe, where.hostname or "127.0.0.1", where.port or 6379)
        self.pipe = pipe
        if where.password:
            authed: asyncio.Future[Any] = loop.create_future()
            pipe.call(_pack(b"AUTH", unquote(where.password).encode()), authed.set_result)
            async with asyncio.timeout(10):
                assert await authed == b"OK"
        fut: asyncio.Future[Any] = loop.create_future()
        pipe.call(_pack(b"SCRIPT", b"LOAD", self.script), fut.set_result)
        async with asyncio.timeout(10):
            sha = await fut
        assert sha == hashlib.sha1(self.script).hexdigest().encode(), sha
        cmd = _pack(b"EVALSHA", sha, b"1", b"{race:bench-baseline}", self.payload)
        for c in self.conns:
            c.ws = _Caller(pipe, cmd, _replied(c))

    def close(self) -> None:
        if self.pipe is not None and self.pipe.transport is not None:
            self.pipe.transport.close()
