"""Shared helpers of the pilot tests."""

from __future__ import annotations

import asyncio
import time

from waiting import DEADLINE

#: Server settings for tests that make accounts: one cheap argon2 pass instead of the real cost.
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
#: The password of the accounts these tests make.
PW = "correct horse battery"


async def account_token(url: str, name: str) -> str:
    """A new account's token (a guest claims `name`, through the library)."""
    from client.library import connect

    async with connect(url, name=name) as c:
        return (await c.claim(name, PW)).token


async def until(pilot, cond, timeout: float = DEADLINE, step: float = 0.02, what: str = "condition"):
    """Let the app run until ``cond()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            status = ""
            try:
                status = str(pilot.app.query_one("#status").render())
            except Exception:  # noqa: BLE001
                pass
            raise AssertionError(f"timed out waiting for {what} (status line: {status!r})")
        await pilot.pause(step)


async def click_pile(pilot, app, pile: str, index: int | None = None):
    """Click a pile (or one of its cards) of the play app's board through the pilot."""
    from client.tui.widgets import BoardView

    board = app.query_one("#board", BoardView)
    x, y = board.canvas.where(pile, index)
    await pilot.click("#board", offset=(x + 1, y))  # +1: the widget's left padding
    await asyncio.sleep(0)


def rendered(widget) -> str:
    return str(widget.render())


async def click_shown(pilot, selector: str) -> None:
    """Click a widget of the current screen once it is laid out (a screen just pushed
    has no size yet, and a click there would miss)."""
    app = pilot.app

    def shown() -> bool:
        found = app.screen.query(selector)
        return bool(found) and found.first().region.area > 0

    await until(pilot, shown, what=f"{selector} shown")
    assert await pilot.click(selector), f"the click on {selector} reached no widget"
