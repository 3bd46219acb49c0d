"""A returning player's daily page (docs/protocol.md §5): after a day closes, the
leaderboard links the replays it publishes (the top `--daily-replay-top` entries,
and your own attempt), a closed day nobody played says so, and the page of your
own attempt links its replay and its day.

The server runs in-process on a thread of its own (its own event loop), so the
test can move the daily's clock past the close (as tests/daily/test_e2e.py does);
the browser is told the same time through its connection's clock.
"""

from __future__ import annotations

import asyncio
import datetime
import re
import threading

import pytest
from playwright import sync_api
from waiting import DEADLINE, wait_until

from client.library import ServerError, connect
from protocol import messages as m
from server.daily import days

from .conftest import shot

GAME = "racing-aces"
TOP = 2  # --daily-replay-top: the published replays of a final day


class ThreadServer:
    """An in-process `App` on its own event loop and thread; `shift_ms` moves the daily clock."""

    def __init__(self, settings) -> None:
        from server.app import App

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.app = App(settings)
        self.run(self.app.start())
        self.shift_ms = 0
        daily = self.app.daily
        assert daily is not None  # App.start made it
        base = daily.clock
        self.base = base
        daily.clock = lambda: base() + self.shift_ms
        self.http = self.app.http_url
        self.ws = self.app.ws_url

    def run(self, coro, timeout: float = DEADLINE):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        try:
            self.run(self.app.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)


@pytest.fixture
def daily_server(fast_settings):
    srv = ThreadServer(fast_settings.replace(daily_replay_top=TOP))
    yield srv
    srv.stop()


@pytest.fixture
def open_page(browser, daily_server):
    """open_page(name) -> a page on the in-process server's lobby, in a fresh context."""
    contexts = []
    errors: list[str] = []

    def make(name: str):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
        page.on("console", lambda msg: print(f"[{name}] {msg.text}"))

        def refused(msg: sync_api.ConsoleMessage) -> None:
            if "Content Security Policy" in msg.text:
                errors.append(f"{name}: {msg.text}")

        page.on("console", refused)
        page.set_default_timeout(DEADLINE * 1000)
        page.add_init_script(f"localStorage.setItem('solrace.name', {name!r})")
        page.goto(daily_server.http)
        page.wait_for_selector(".net.online")
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"uncaught errors in the page: {errors}"


async def bot_attempt(url: str, name: str, moves: int) -> tuple[str, str]:
    """A client-library player plays `moves` greedy moves of today's daily and stops."""
    async with connect(url, name=name) as c:
        snap = await c.request(m.DailyStart(game=GAME))
        rid = snap.race
        await c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE)
        ack = await c.move(rid, "draw", view=True)
        for _ in range(moves):
            if ack.won:
                break
            legal = ack.legal or []
            home = [x for x in legal if ">f" in x and not x.startswith("f")]
            choices = home or [x for x in legal if x == "draw"] or legal
            if not choices:
                break
            ack = await c.move(rid, choices[0], view=True)
        try:
            await c.finish(rid)
        except ServerError:
            pass  # won: the race is over already
        await c.wait_for("end", lambda ev: ev.race == rid, timeout=DEADLINE)
        assert c.player is not None
        return c.player, rid


async def published(url: str, date: str) -> dict[str, str]:
    async with connect(url, name="reader") as c:
        rep = await c.request(m.DailyReplay(game=GAME, date=date))
        return {p.player: p.race for p in rep.players}


def linked_rows(page) -> dict[str, str]:
    """player -> href of the leaderboard rows that have a replay link."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#leaderboard tbody tr[data-player]')]
             .map((tr) => [tr.dataset.player, tr.querySelector('a.replay-link')])
             .filter(([, a]) => a).map(([p, a]) => [p, a.getAttribute('href')]))"""
    )


def wait_replay_loaded(page, rid: str) -> None:
    page.wait_for_url(re.compile(rf"#replay={rid}"))
    page.wait_for_selector("#replay-page .replay-player .pile")
    page.wait_for_selector("#replay-verify .verify.ok")
    assert "every board" in page.locator("#replay-check").inner_text()
    assert page.evaluate("window.solrace.replayPage.id") == rid


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_closed_day_links_published_replays(daily_server, open_page):
    """Play today's daily, the day closes: the final board links the top replays and yours."""
    srv = daily_server
    page = open_page("rita")
    page.goto(srv.http + f"#daily={GAME}")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    rid = page.evaluate("location.hash").split("=", 1)[1]
    page.wait_for_selector("#board .pile", timeout=60000)
    page.wait_for_function("window.solrace.app.you && window.solrace.app.you.status === 'playing'")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel #sealed")
    me = page.evaluate("window.solrace.app.me.player")
    date = days.day_of(srv.app.daily.clock())  # today's (the test is clear of midnight)
    # before the close: no replay, but a link to the day's page
    assert page.locator("#to-replay").count() == 0
    assert page.locator("#sealed-day").get_attribute("href") == f"#daily={GAME}&date={date}"

    # three rivals play more or less of it
    rivals = [srv.run(bot_attempt(srv.ws, f"bot{i}", moves)) for i, moves in enumerate((4, 12, 30))]
    assert len({r for _, r in rivals}) == 3

    page.click("#sealed-day")
    wait_until(lambda: page.locator("#leaderboard tbody tr[data-player]").count() == 4)
    assert linked_rows(page) == {}  # open: nothing is published
    assert page.locator("#daily-winner").count() == 0

    # Midnight, plus the finalization grace: the day is final.
    srv.shift_ms = days.closes_at(date) - srv.base() + srv.app.daily.finalize_grace_ms + 1000
    top = srv.run(published(srv.ws, date))
    assert len(top) == TOP
    page.goto(srv.http + "#/")  # a returning player: back to the day's page
    page.wait_for_selector("#main .tile")
    page.goto(srv.http + f"#daily={GAME}&date={date}")
    page.wait_for_selector("#daily-info .pill.p-finished")
    page.wait_for_selector("#leaderboard a.replay-link")
    page.wait_for_selector("#daily-winner")
    day = f"&daily={GAME}&date={date}"  # the day too: the page falls back to it once the race expired
    expected = {p: f"#replay={r}{day}" for p, r in top.items()}
    expected[me] = f"#replay={rid}{day}"
    assert linked_rows(page) == expected
    assert page.locator("#leaderboard tbody tr[data-player]").count() > len(expected)  # not every row
    first = page.locator("#leaderboard tbody tr[data-player]").first.get_attribute("data-player")
    assert page.locator("#daily-winner").get_attribute("href") == expected[first]
    assert page.locator("#daily-my-replay").get_attribute("href") == f"#replay={rid}{day}"
    shot(page, "daily-closed-replays", full_page=True)

    # a rival's replay from the top, then the winner's, then your own
    other = next(p for p in top if p != me)
    page.click(f'#leaderboard tr[data-player="{other}"] a.replay-link')
    wait_replay_loaded(page, top[other])
    page.go_back()
    page.wait_for_selector("#daily-winner")
    page.click("#daily-winner")
    wait_replay_loaded(page, expected[first].split("=", 1)[1].split("&", 1)[0])
    page.go_back()
    page.click(f'#leaderboard tr[data-player="{me}"] a.replay-link')
    wait_replay_loaded(page, rid)

    # the page of your own attempt, now that the day is closed (the browser's clock too)
    page.evaluate(
        "(s) => { const c = window.solrace.conn; c.now = () => Date.now() + c.offset + s; }", srv.shift_ms
    )
    page.goto(srv.http + f"#race={rid}")
    page.wait_for_selector("#result-panel #sealed-replay")
    assert page.locator("#sealed-replay").get_attribute("href") == f"#replay={rid}"
    assert page.locator("#sealed-day").get_attribute("href") == f"#daily={GAME}&date={date}"
    shot(page, "daily-attempt-after-close", full_page=True)
    page.click("#to-replay")
    wait_replay_loaded(page, rid)


def test_closed_day_nobody_played(daily_server, open_page):
    """A past day with no attempt: the closed-day wording, nothing to play or watch."""
    srv = daily_server
    today = days.day_of(srv.app.daily.clock())
    yesterday = (datetime.date.fromisoformat(today) - datetime.timedelta(days=1)).isoformat()
    page = open_page("pat")
    page.goto(srv.http + f"#daily={GAME}&date={yesterday}")
    page.wait_for_selector("#daily-empty")
    assert page.locator("#daily-empty").inner_text() == "Nobody played this day."
    assert page.locator("#daily-start").count() == 0
    assert page.locator("#daily-winner").count() == 0
    assert "closed" in page.locator("#daily-info").inner_text()
    shot(page, "daily-closed-empty", full_page=True)
