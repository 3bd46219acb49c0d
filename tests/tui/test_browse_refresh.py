"""The browsing apps' timer refresh (client/tui/browse.py `refresh_due`) waits for the one in
flight: each refresh is an exclusive worker, and starting one on every tick cancelled the one
before, so with replies slower than the timer no refresh ever ended (a loaded machine saw the
arena screen never learn its race)."""

from __future__ import annotations

import asyncio
from typing import Any

from client.tui.offline import LocalSession
from client.tui.watch_app import WatchApp

from .helpers import until


class HeldList(LocalSession):
    """A session whose race lists after the first wait for `gate`: a reply slower than the timer."""

    def __init__(self) -> None:
        # the bots' first move an hour away: both races stay on the list all along
        super().__init__(name="w", watch_demo=True, countdown_ms=50, rival_interval=3600)
        self.gate = asyncio.Event()
        self.asked = 0
        self.cancelled = 0

    async def request(self, t: str, **f: Any) -> dict[str, Any]:
        if t == "races":
            self.asked += 1
            if self.asked > 1:
                try:
                    await self.gate.wait()
                except asyncio.CancelledError:
                    self.cancelled += 1
                    raise
        return await super().request(t, **f)


class CountedWatch(WatchApp):
    ticks = 0

    def refresh_due(self) -> None:
        self.ticks += 1
        super().refresh_due()


async def test_a_slow_list_is_waited_for_not_asked_again():
    session = HeldList()

    async def connect():
        return session

    app = CountedWatch(connect, refresh_s=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.races) == 2, what="the first list")
        await until(pilot, lambda: session.asked == 2, what="a refresh held")
        held_at = app.ticks
        app.races = []  # what the held refresh brings back shows when it lands
        await until(pilot, lambda: app.ticks >= held_at + 3, what="three more ticks")
        assert session.asked == 2 and session.cancelled == 0
        session.gate.set()
        await until(pilot, lambda: len(app.races) == 2, what="the held refresh's list")
        await until(pilot, lambda: session.asked > 2, what="the timer refreshing again")
        assert session.cancelled == 0
