"""A tiny raw WebSocket + MessagePack client for the server tests.

It records every frame it receives (`frames`, raw bytes) so tests can check
what a recipient saw, and sends anything, including broken frames.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
from waiting import DEADLINE
from websockets.asyncio.client import connect


class Raw:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[bytes] = []
        self.unread: list[dict[str, Any]] = []
        self.new = asyncio.Event()
        self.rids = itertools.count(1)
        self.closed: Any = None  # the close frame code once closed
        self.reader = asyncio.create_task(self._read())
        self._welcome: tuple[str, str] | None = None  # (player, token), set by hello

    @property
    def player(self) -> str:
        """The player id the welcome gave; asking before a hello fails the test."""
        return self._welcomed()[0]

    @property
    def token(self) -> str:
        """The session token the welcome gave; asking before a hello fails the test."""
        return self._welcomed()[1]

    def _welcomed(self) -> tuple[str, str]:
        assert self._welcome is not None, "no hello on this connection yet"
        return self._welcome

    @classmethod
    async def open(cls, url: str, **kw: Any) -> Raw:
        ws = await connect(url, compression=None, max_size=2**22, **kw)
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.frames.append(frame)
                self.unread.append(msgpack.unpackb(frame) if isinstance(frame, bytes) else {"text": frame})
                self.new.set()
        except Exception:
            pass
        finally:
            self.closed = self.ws.close_code
            self.new.set()

    async def send(self, msg: dict[str, Any] | bytes | str) -> None:
        await self.ws.send(msgpack.packb(msg) if isinstance(msg, dict) else msg)

    async def wait(self, pred: Callable[[dict], bool] | str, timeout: float = DEADLINE) -> dict[str, Any]:
        if isinstance(pred, str):
            kind = pred
            pred = lambda m: m.get("t") == kind  # noqa: E731
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            for i, m in enumerate(self.unread):
                if pred(m):
                    del self.unread[i]
                    return m
            if self.reader.done():
                raise ConnectionError(f"closed ({self.closed}) while waiting")
            self.new.clear()
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"nothing matched; unread: {self.unread[-5:]}")
            try:
                await asyncio.wait_for(self.new.wait(), left)
            except TimeoutError:
                pass

    async def request(self, t: str, timeout: float = DEADLINE, **fields: Any) -> dict[str, Any]:
        rid = next(self.rids)
        await self.send({"t": t, "rid": rid, **fields})
        return await self.wait(lambda m: m.get("rid") == rid, timeout)

    async def hello(self, name: str | None = None, token: str | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"v": 1}
        if name:
            fields["name"] = name
        if token:
            fields["token"] = token
        w = await self.request("hello", **fields)
        assert w["t"] == "welcome", w
        self._welcome = (w["player"], w["token"])
        return w

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.gather(self.reader, return_exceptions=True)


async def player(url: str, name: str) -> Raw:
    c = await Raw.open(url)
    await c.hello(name)
    return c
