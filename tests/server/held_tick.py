"""A clock tick held right after it read a race: what another process's tick does when a change
lands between its read and its writes (tests of the timers it writes)."""

from __future__ import annotations

import asyncio
from typing import Any

from waiting import until


class HeldTick:
    """``async with HeldTick(app, rid, monkeypatch) as held:`` starts `clock.tick(rid)` and
    returns once it has read the race; the block makes its change; leaving the block lets the
    tick go on and waits for it."""

    def __init__(self, app: Any, rid: str, monkeypatch: Any) -> None:
        self.app, self.rid, self.monkeypatch = app, rid, monkeypatch
        self.read, self.release = asyncio.Event(), asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> HeldTick:
        store = self.app.store
        load_race = store.load_race

        async def held_after_reading(race_id: str) -> Any:
            got = await load_race(race_id)
            if race_id == self.rid and not self.read.is_set():
                self.read.set()
                await self.release.wait()
            return got

        self.monkeypatch.setattr(store, "load_race", held_after_reading)
        self.task = asyncio.create_task(self.app.service.clock.tick(self.rid))
        await until(self.read.is_set, what="the tick read the race")
        self.monkeypatch.setattr(store, "load_race", load_race)  # the change's own reads go through
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        assert self.task is not None
        await self.task
