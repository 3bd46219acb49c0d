"""The library's own events, and the client's event buffer (`events`, `wait_for`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol import messages as m

from .errors import Disconnected
from .state import ClientState

T = TypeVar("T")


@dataclass(frozen=True)
class ConnectionLost:
    """Event: the connection dropped; with `reconnect=True` a retry follows."""

    kind = "disconnected"
    code: int | None
    reason: str


@dataclass(frozen=True)
class Reconnected:
    """Event: a new connection is up, the identity resumed, races resynced.

    Each race watched (`spectate`) was watched again first: its snapshot came as a `race`
    event before this one (see the `connection` module doc)."""

    kind = "reconnected"
    attempts: int


_TAGS: dict[type, str] = {cls: cls.__struct_config__.tag for cls in m.SERVER_TYPES}  # type: ignore[misc]


def event_kind(ev: object) -> str:
    """The kind of an event: the wire tag (`"progress"`) or the library's own."""
    tag = _TAGS.get(type(ev))
    if tag is not None:
        return tag
    kind = getattr(ev, "kind", None)
    return kind if isinstance(kind, str) else type(ev).__name__


class EventQueue(ClientState):
    """Events (everything without a `rid` of ours) in one buffer, in arrival order."""

    def _emit(self, ev: object) -> None:
        self._events.append(ev)
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    async def _wait_event(self, deadline: float | None) -> None:
        if self._closed:
            raise Disconnected("connection closed")
        w: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(w)
        if deadline is None:
            await w
            return
        delay = deadline - time.monotonic()
        if delay <= 0:
            raise TimeoutError
        async with asyncio.timeout(delay):
            await w

    async def next_event(self, timeout: float | None = None) -> object:
        """The oldest buffered event (waiting for one if there is none)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._events:
            await self._wait_event(deadline)
        return self._events.popleft()

    async def events(self) -> AsyncIterator[object]:
        """`async for ev in c.events()`: every event in order; ends when closed."""
        while True:
            try:
                yield await self.next_event()
            except Disconnected:
                return

    def pending_events(self) -> list[object]:
        """Take every buffered event without waiting."""
        out = list(self._events)
        self._events.clear()
        return out

    async def wait_for(
        self,
        kind: str | type[T] | tuple[type, ...] | None = None,
        predicate: Callable[[Any], bool] | None = None,
        timeout: float | None = 10.0,
    ) -> Any:
        """Take the first buffered or future event of `kind` matching `predicate`.

        `kind` is a wire tag (`"start"`, `"progress"`), an event class
        (`messages.Started`), a tuple of classes, or None for any. Events that
        do not match stay buffered. Raises `TimeoutError` or `Disconnected`.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = 0
        while True:
            events = self._events
            for i in range(seen, len(events)):
                ev = events[i]
                if kind is not None:
                    if isinstance(kind, str):
                        if event_kind(ev) != kind:
                            continue
                    elif not isinstance(ev, kind):
                        continue
                if predicate is not None and not predicate(ev):
                    continue
                del events[i]
                return ev
            seen = len(events)
            await self._wait_event(deadline)
            seen = min(seen, len(self._events))  # a concurrent reader may have taken some
