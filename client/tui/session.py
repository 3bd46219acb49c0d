"""The connection the terminal apps talk through.

The apps need very little from a connection: ``request(t, **fields)`` sends a
request and returns the reply as a dict (docs/protocol.md), raising
:class:`ServerError` for an ``error`` reply; unsolicited events arrive on the
``events`` queue as dicts; ``server_now()`` is the server clock in ms.

* ``client.tui.offline.LocalSession`` plays races offline with the rules engine
  against simulated rivals (``solrace play --offline``); tests use it to drive
  the UI without a server.
* ``client.tui.net`` adapts the asyncio client library to this interface.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol


class ServerError(Exception):
    """An ``error`` reply: ``code`` (stable), ``message`` and extra fields."""

    def __init__(self, code: str, message: str = "", **extra: Any):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.extra = extra

    def describe(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.extra.items() if k not in ("t", "rid"))
        return " ".join(x for x in (self.code, extra, self.message and f"— {self.message}") if x)


class Session(Protocol):
    player: str
    name: str
    events: asyncio.Queue[dict[str, Any]]

    def server_now(self) -> int: ...

    async def request(self, t: str, **fields: Any) -> dict[str, Any]: ...

    async def close(self) -> None: ...


def now_ms() -> int:
    return int(time.time() * 1000)
