"""A daily attempt started on another device (or from "Your races" in a browser that did
not start it) shows as the daily attempt it is: its snapshot says so (docs/protocol.md §3,
`daily`). It was an ordinary solo race there, with a Hint button the server refused and a
Rematch it refused too. Its replay before the day closes links the day, not "Watch it live"."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from client.library import connect
from protocol import messages as m

from .conftest import shot

# Today's attempt on the real clock: in the day's last seconds the server refuses it, and the
# second test's "before the close" would not hold across midnight (tests/conftest.py).
pytestmark = pytest.mark.daily

GAME = "racing-aces"


async def attempt(url: str, token: str, finish: bool) -> str:
    """Today's attempt of GAME for the player of `token`, from another connection."""
    async with connect(url, token=token) as c:
        snap = await c.request(m.DailyStart(game=GAME))
        if finish:
            await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=30)
            await c.finish(snap.race)
            await c.wait_for("end", lambda ev: ev.race == snap.race, timeout=30)
        return snap.race


def on_another_device(url: str, token: str, finish: bool = False) -> str:
    """`attempt` on a loop of its own (playwright's sync API runs one on this thread)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, attempt(url, token, finish)).result(60)


def test_a_daily_attempt_from_another_device_is_shown_as_one(new_page, web_server):
    page = new_page("erin")
    token = page.evaluate("localStorage.getItem('solrace.token')")
    race = on_another_device(web_server.ws, token)
    page.evaluate(f"location.hash = 'race={race}'")
    page.wait_for_function(
        "document.querySelector('#race-title')?.textContent.startsWith('Daily · ')", polling=100
    )
    page.wait_for_selector("#board")
    assert page.locator("#hint-btn").count() == 0
    shot(page, "daily-other-device")


def test_a_daily_attempts_replay_before_the_close_links_the_day(new_page, web_server):
    page = new_page("fay")
    token = page.evaluate("localStorage.getItem('solrace.token')")
    race = on_another_device(web_server.ws, token, finish=True)
    page.evaluate(f"location.hash = 'race={race}'")
    page.wait_for_function(
        "document.querySelector('#race-title')?.textContent.startsWith('Daily · ')", polling=100
    )
    page.evaluate(f"location.hash = 'replay={race}'")
    page.wait_for_selector("#replay-day")
    assert page.get_by_text("Watch it live").count() == 0
    shot(page, "daily-replay-before-close")
