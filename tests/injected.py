"""Failures injected into a live server: one method of its store, lobby or queue replaced by
one that raises for its first calls (a Redis blip), everything else real (Redis, sockets,
scripts). For the tests of what a failure part-way through an operation leaves behind."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Blip(ConnectionError):
    """What the injected failures raise: a Redis connection lost mid-way."""


def fail_first(
    obj: Any,
    name: str,
    times: int = 1,
    *,
    who: str | None = None,
    why: str = "",
    error: Callable[[str], Exception] = Blip,
) -> dict[str, int]:
    """`obj.name(...)` raises `error(why)` (a `Blip`, unless told) for its first `times` calls
    (only those whose first argument is `who`, if given), then does its work. Returns the count
    of calls seen (``{"n": ...}``, of `who`'s only if given), to wait on."""
    real = getattr(obj, name)
    calls = {"n": 0}

    async def flaky(*args: Any, **kw: Any) -> Any:
        if who is None or (args and args[0] == who):
            calls["n"] += 1
            if calls["n"] <= times:
                raise error(why or f"redis blip in {name}")
        return await real(*args, **kw)

    setattr(obj, name, flaky)
    return calls


def stop_first(obj: Any, name: str) -> tuple[asyncio.Event, asyncio.Event]:
    """`slow_first` whose first call then fails (`Blip`)."""
    return slow_first(obj, name, fails=True)


def slow_first(obj: Any, name: str, *, fails: bool = False) -> tuple[asyncio.Event, asyncio.Event]:
    """`obj.name(...)`'s first call is slow: it sets the first event returned (reached), waits for
    the second (go on), then does its work (`fails`: raises `Blip` instead); later calls do
    theirs at once. For an operation overtaken part-way, or a failure that takes a while, while
    the test does something meanwhile."""
    real = getattr(obj, name)
    reached, go_on = asyncio.Event(), asyncio.Event()

    async def slow(*args: Any, **kw: Any) -> Any:
        if not reached.is_set():
            reached.set()
            await go_on.wait()
            if fails:
                raise Blip(f"redis blip in {name}, after a while")
        return await real(*args, **kw)

    setattr(obj, name, slow)
    return reached, go_on


def read_then_wait(obj: Any, name: str) -> tuple[asyncio.Event, asyncio.Event]:
    """`obj.name(...)`'s first call does its work, then sets the first event returned (read)
    and waits for the second (go on) before it returns: a reply read from Redis that is
    late to go out (a busy process), while the test does something meanwhile."""
    real = getattr(obj, name)
    read, go_on = asyncio.Event(), asyncio.Event()

    async def late(*args: Any, **kw: Any) -> Any:
        out = await real(*args, **kw)
        if not read.is_set():
            read.set()
            await go_on.wait()
        return out

    setattr(obj, name, late)
    return read, go_on


def after_first(obj: Any, name: str) -> asyncio.Event:
    """An event set once `obj.name(...)`'s first call has done its work: the caller goes on
    from there without a pause, so when a test that waits on it resumes, whatever the caller
    did next without waiting (a reply sent, a wait begun) is done."""
    read, go_on = read_then_wait(obj, name)
    go_on.set()
    return read


class Held:
    """A call held back by `held_first`: `call` its arguments once made."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.call: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    async def late(self) -> Any:
        """Make the held call now, as Redis does when it reads a request its sender gave up on."""
        assert self.call is not None, "no call held yet"
        args, kw = self.call
        return await self.real(*args, **kw)


def held_first(obj: Any, name: str, *, who: Any = None) -> Held:
    """`obj.name(...)`'s first call (the first whose first argument is `who`, if given) is not
    made: it raises `Blip`, as a request sent on a connection that failed before the reply,
    and is kept, to be made later (`Held.late`): such a request may still reach Redis after
    its sender gave up on it. Later calls do their work."""
    real = getattr(obj, name)
    held = Held(real)

    async def holding(*args: Any, **kw: Any) -> Any:
        if held.call is None and (who is None or (args and args[0] == who)):
            held.call = (args, kw)
            raise Blip(f"redis blip in {name}: sent, its reply lost")
        return await real(*args, **kw)

    setattr(obj, name, holding)
    return held
