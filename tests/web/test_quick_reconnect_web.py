"""Quick match across a lost connection: the page waiting in the queue loses the server (it
stops and starts again on its port and data folder) and, once back, sends `quick` again (its
entry left the queue with its last connection, docs/protocol.md §3 `quick`). A rival who
queues after that is matched with it; a refusal of the quick sent again is said, and the
"Looking for a rival" banner ends (it stayed, over a queue the page was no longer in).

The page is kept offline (its browser context's network) while the server is away, so that
what happens then happens before it is back. Screenshots: test-artifacts/web/quick-reconnect-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from waiting import DEADLINE

from .conftest import TOASTS_KEPT, Bot, Restartable, Server, shot
from .test_watch_reconnect_web import TokenBot

pytestmark = pytest.mark.timeout(180)

# No server bot in a quick-match (it would take the empty seat while the page is away); one
# seat per player, for the refusal (a seat taken elsewhere meanwhile fills it).
FLAGS = {"countdown_ms": 1200, "quick_bot_after_s": 0, "max_races_per_player": 1}


@pytest.fixture
def restartable(tmp_path):
    """A server of its own, and its `restart()` (same port, same data folder)."""
    own = Restartable(tmp_path, **FLAGS)
    yield own.server, own.restart
    own.server.stop()


def queued_page(browser, srv: Server, width: int, height: int):
    """A page waiting in Fours Up's quick-match queue: (context, page)."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(DEADLINE * 1000)
    page.add_init_script("localStorage.setItem('solrace.name', 'queuer')")
    page.add_init_script(TOASTS_KEPT)
    page.goto(srv.http + "/")
    page.wait_for_selector(".net.online")
    page.click('.tile[data-game="fours-up"] [data-act="quick"]')
    expect(page.locator("#banner")).to_contain_text("Looking for a rival")
    page.wait_for_function("window.solrace.app.queued !== null")
    return ctx, page


def away(ctx, page, restart) -> Server:
    """The server stops while the page cannot reach it, and starts again; the page stays away."""
    ctx.set_offline(True)  # new sockets fail; the one open goes with the server
    srv = restart()
    page.wait_for_function("window.solrace.conn.status !== 'online'")
    return srv


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_a_rival_who_queues_after_the_reconnect_is_matched_with_the_page(
    browser, restartable, bots, width, height
):
    srv, restart = restartable
    ctx, page = queued_page(browser, srv, width, height)
    try:
        srv = away(ctx, page, restart)
        ctx.set_offline(False)
        # back: its welcome, then the reply to the quick sent again (app.queued is cleared at
        # the welcome and set again by that reply)
        page.wait_for_function(
            "window.solrace.conn.status === 'online' && window.solrace.app.queued !== null",
            timeout=2 * DEADLINE * 1000,
        )
        expect(page.locator("#banner")).to_contain_text("Looking for a rival")
        rival = Bot(srv.ws, "rival-bot")
        bots.append(rival)
        rival.call(lambda c: c.quick("fours-up", 2))
        page.wait_for_url(re.compile(r"#race=r"))
        me = page.evaluate("window.solrace.app.me.player")
        rid = page.url.split("#race=")[1]
        snap = rival.call(lambda c: c.resync(rid))
        assert {p.player for p in snap.race.players} == {me, rival.client.player}
        expect(page.locator(f'#players li[data-player="{rival.client.player}"]')).to_be_visible()
        expect(page.locator("#banner")).to_be_hidden()
        shot(page, f"quick-reconnect-matched-{width}")
    finally:
        ctx.close()


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_a_refused_quick_after_the_reconnect_is_said_and_ends_the_wait(
    browser, restartable, bots, width, height
):
    srv, restart = restartable
    ctx, page = queued_page(browser, srv, width, height)
    try:
        token = page.evaluate("localStorage.getItem('solrace.token')")
        srv = away(ctx, page, restart)
        # meanwhile the same player, on another device, takes their one seat
        other = TokenBot(srv.ws, token)
        bots.append(other)
        other.call(lambda c: c.create("fours-up", seats=2, time_limit_s=300))
        ctx.set_offline(False)
        page.wait_for_selector(".net.online", timeout=2 * DEADLINE * 1000)
        page.wait_for_function(
            "(globalThis.__toasts || []).some((t) => t.includes('Quick match failed') && t.includes('too many races'))"
        )
        expect(page.locator("#banner")).to_be_hidden()
        assert page.evaluate("window.solrace.app.queued") is None
        shot(page, f"quick-reconnect-refused-{width}")
    finally:
        ctx.close()


def test_a_rated_wait_is_taken_up_again_after_the_reconnect(browser, restartable, bots):
    """The same for an account in the rated queue: the quick sent again is rated, and a rated
    rival who queues after the reconnect is matched with the page in a rated race."""
    from protocol import messages as m

    from .accounts_pages import claim

    srv, restart = restartable
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.set_default_timeout(DEADLINE * 1000)
        page.add_init_script(TOASTS_KEPT)
        page.goto(srv.http + "/")
        page.wait_for_selector(".net.online")
        me = claim(page, "quinn", "quinn's secret")
        page.goto(srv.http + "/#/")
        page.check("#rated-toggle")
        page.click('.tile[data-game="fours-up"] [data-act="quick"]')
        expect(page.locator("#banner")).to_contain_text("Looking for a rival for a rated Fours Up")
        page.wait_for_function("window.solrace.app.queued !== null && window.solrace.app.queued.rated")
        srv = away(ctx, page, restart)
        ctx.set_offline(False)
        page.wait_for_function(
            "window.solrace.conn.status === 'online' && window.solrace.app.queued !== null",
            timeout=2 * DEADLINE * 1000,
        )
        assert page.evaluate("window.solrace.app.queued.rated") is True
        rival = Bot(srv.ws, "rival-bot")
        bots.append(rival)
        rival.call(lambda c: c.request(m.Claim(name="rivka", password="rivka's secret")))
        rival.call(lambda c: c.quick("fours-up", 2, rated=True))
        page.wait_for_url(re.compile(r"#race=r"), timeout=2 * DEADLINE * 1000)
        rid = page.url.split("#race=")[1]
        snap = rival.call(lambda c: c.resync(rid)).race
        assert {p.player for p in snap.players} == {me, rival.client.player}
        assert snap.rated
        expect(page.locator("#banner")).to_be_hidden()
        shot(page, "quick-reconnect-rated")
    finally:
        ctx.close()
