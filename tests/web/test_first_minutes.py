"""A new player's first minutes in the browser, from an outside audit.

An error after "Where was the win lost?" reads as a sentence; a lost connection shows a
banner (the board not playable) and a note once it is back; a full race offers watching,
not the host's lobby panel; a spectator is told when the boards will appear, and the
Watch list says the real delay; a player who finished early is told what happens next and
may go back to the lobby without losing the result; names are shown whole; "1 attempt".
Screenshots: test-artifacts/web/first-*.png.
"""

from __future__ import annotations

import re

import pytest
from waiting import DEADLINE

from .conftest import Server, shot
from .test_browser import create_in_ui, finished_solo_race, race_id, wait_board

pytestmark = pytest.mark.timeout(180)


def open_page(browser, server, name: str, width: int = 1280, height: int = 860):
    """A page on `server`'s lobby in a fresh context (for the servers of this file)."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(DEADLINE * 1000)
    page.add_init_script(f"localStorage.setItem('solrace.name', {name!r})")
    page.goto(server.http + "/")
    page.wait_for_selector(".net.online")
    return ctx, page


def start_solo(page, game: str = "fours-up") -> str:
    rid = create_in_ui(page, game, 1)
    page.click("#ready-btn")
    wait_board(page)
    return rid


# ----------------------------------------------------------------------------- 1. errors in words


def test_an_analysis_error_reads_as_a_sentence(new_page):
    """The connection lost while the analysis is asked: the page says so in words (it used to
    show the bare code "disconnected") and offers to ask again."""
    page = new_page("ada")
    finished_solo_race(page)
    page.evaluate(
        """() => {
          const c = window.solrace.conn, request = c.request.bind(c);
          c.request = (msg, ms) =>
            msg.t === "analysis" ? Promise.reject({ t: "error", code: "disconnected", message: "disconnected" }) : request(msg, ms);
        }"""
    )
    page.click("#analyze")
    page.wait_for_selector("#analysis.bad")
    text = page.locator("#analysis").inner_text()
    assert text.strip() != "disconnected" and "connection was lost" in text, text
    assert page.locator("#analyze").is_visible()  # ask again
    shot(page, "first-analysis-error")


# ----------------------------------------------------------------------------- 2. lost connection


@pytest.fixture
def restartable(tmp_path):
    srv = Server(tmp_path, countdown_ms=1200)

    def restart():
        srv.stop()
        again = Server(tmp_path, port=srv.port, countdown_ms=1200)
        holder[0] = again
        return again

    holder = [srv]
    yield srv, restart
    holder[0].stop()


@pytest.mark.parametrize("size", [(1280, 860), (360, 640)])
def test_a_lost_connection_shows_a_banner_and_its_return(browser, restartable, size):
    srv, restart = restartable
    ctx, page = open_page(browser, srv, "phoenix", *size)
    try:
        start_solo(page)
        banner = page.locator("#conn-banner")
        assert banner.is_hidden()
        srv.proc.terminate()  # the server goes away for a while
        srv.proc.wait(10)
        page.wait_for_selector("#conn-banner >> text=Connection lost")
        assert "reconnecting" in banner.inner_text()
        # the board cannot be played meanwhile
        assert (
            page.evaluate("getComputedStyle(document.querySelector('#board-wrap')).pointerEvents") == "none"
        )
        shot(page, f"first-offline-{size[0]}")
        restart()
        page.wait_for_selector("#conn-banner >> text=Reconnected", timeout=60_000)
        page.wait_for_selector(".net.online")
        page.wait_for_function("window.solrace.app.you && window.solrace.app.you.legal.length > 0")
        assert (
            page.evaluate("getComputedStyle(document.querySelector('#board-wrap')).pointerEvents") != "none"
        )
        shot(page, f"first-reconnected-{size[0]}")
        page.wait_for_selector("#conn-banner", state="hidden")  # a short note
    finally:
        ctx.close()


# ----------------------------------------------------------------------------- 3. a full race


@pytest.mark.parametrize("size", [(1280, 860), (360, 640)])
def test_a_full_race_offers_watching_not_the_hosts_lobby_panel(new_page, make_bot, size):
    alice, bob = make_bot("Alice"), make_bot("Bob")
    rid = alice.call(lambda c: c.create("double-aces-and-kings", seats=2, time_limit_s=600)).race
    bob.call(lambda c: c.join(rid))
    page = new_page("carol", *size)
    page.goto(page.url.split("#")[0] + f"#race={rid}")
    page.wait_for_selector(".error-panel >> text=This race is full.")
    main = page.locator("#main").inner_text()
    for host_words in ("Waiting for players", "Share this link", "bring your own bot", "Copy"):
        assert host_words not in main, (host_words, main)
    shot(page, f"first-race-full-{size[0]}", full_page=True)
    page.click("#watch-instead")
    page.wait_for_url(re.compile(f"#watch={rid}"))
    page.wait_for_selector("#watch-page >> text=has not started yet")


# ----------------------------------------------------------------------------- 4. spectating


@pytest.fixture(scope="module")
def slow_watch_server(tmp_path_factory):
    """Spectators see the boards 5 s late (long enough to see the page wait for them)."""
    srv = Server(tmp_path_factory.mktemp("slow-watch"), countdown_ms=1200, spectator_delay_ms=5000)
    yield srv
    srv.stop()


@pytest.mark.parametrize("size", [(1280, 860), (360, 640)])
def test_a_spectator_is_told_when_the_boards_appear(browser, slow_watch_server, size):
    from .conftest import Bot

    a, b = Bot(slow_watch_server.ws, "alice-bot"), Bot(slow_watch_server.ws, "bob-bot")
    ctx = None
    try:
        rid = a.call(lambda c: c.create("racing-aces", seats=2, time_limit_s=120)).race
        b.call(lambda c: c.join(rid))
        a.call(lambda c: c.ready(rid))
        b.call(lambda c: c.ready(rid))
        a.play(rid, delay=0.3)
        ctx, page = open_page(browser, slow_watch_server, "watcher", *size)
        page.click('a[data-nav="watch"]')
        page.wait_for_selector(f'#race-list tr[data-race="{rid}"]')
        # The lobby lists live races too: wait for the watch page's own text, not the row alone.
        page.locator("#main", has_text="5 s late").wait_for()  # not "a few seconds"
        page.click(f'#race-list tr[data-race="{rid}"] a:has-text("Watch")')
        wait = page.locator("#boards-wait")
        wait.wait_for()
        # one delay after the start (or after we began watching, if later): during the
        # countdown (1.2 s), a loaded machine may get the page there first
        m = re.search(r"appear in (\d) s", wait.inner_text())
        assert m and 1 <= int(m.group(1)) <= 7, wait.inner_text()
        shot(page, f"first-spectate-wait-{size[0]}")
        page.wait_for_selector(".spec-board .pile", timeout=30_000)
        assert wait.count() == 0 or wait.is_hidden()
        page.wait_for_selector("#race-status >> text=running")  # also if we came in the countdown
        assert "5 s late" in page.locator(".delay-note").inner_text()
        shot(page, f"first-spectate-boards-{size[0]}")
    finally:
        if ctx:
            ctx.close()
        a.close()
        b.close()


# ----------------------------------------------------------------------------- 5. finished early


@pytest.mark.parametrize("size", [(1280, 860), (360, 640)])
def test_finishing_early_says_what_next_and_keeps_the_result(new_page, make_bot, size):
    page = new_page("early", *size)
    page.evaluate("window.solrace.createRace('fours-up', 2, 300, false)")
    rid = race_id(page)
    bot = make_bot("Greedy bot with a long")
    bot.call(lambda c: c.join(rid))
    bot.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    cover = page.locator("#board-cover")
    cover.locator("text=Your result is kept").wait_for()
    text = cover.inner_text()
    assert "when the others finish" in text and re.search(r"\b[0-4]:\d\d\b", text), text
    # the board under the cover takes no focus and offers nothing to press (inert)
    assert page.evaluate("document.querySelector('#board').inert")
    shot(page, f"first-finished-waiting-{size[0]}", full_page=True)
    # back to the lobby: nothing is given up, and the end is announced there
    page.click("#cover-lobby")
    page.wait_for_selector(".lobby .tiles")
    bot.call(lambda c: c.finish(rid))
    page.wait_for_selector("#banner >> text=is over")
    shot(page, f"first-finished-banner-{size[0]}")
    page.click("#see-result")
    page.wait_for_selector("#result-panel")
    me = page.evaluate("window.solrace.app.me.player")
    page.wait_for_selector(f'#result-panel tr.mine[data-player="{me}"]')
    assert "finished" in page.locator(f'#result-panel tr[data-player="{me}"]').inner_text()


# ----------------------------------------------------------------------------- 6. small things


def test_names_are_shown_whole_in_the_side_panel(new_page, make_bot):
    page = new_page("player-with-long-name")
    page.evaluate("window.solrace.createRace('fours-up', 2, 300, false)")
    rid = race_id(page)
    bot = make_bot("Greedy bot with a long")
    bot.call(lambda c: c.join(rid))
    bot.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    for pid, name in (
        (page.evaluate("window.solrace.app.me.player"), "player-with-long-name"),
        (bot.client.player, "Greedy bot with a long"),
    ):
        el = page.locator(f'#players li[data-player="{pid}"] .pname')
        assert el.get_attribute("title") == name
        assert name in el.inner_text()
        assert page.evaluate(
            f"""(() => {{ const e = document.querySelector('#players li[data-player="{pid}"] .pname');
                 return e.scrollWidth <= e.clientWidth; }})()"""
        ), f"{name} is cut off"
    shot(page, "first-names")


def test_the_phone_header_is_compact(new_page):
    """At 360 px the header took three rows (the nav wrapped onto two, ~105 px): now the logo,
    name and connection on one, the whole nav on a second (~70 px). One row would leave
    room for two or three of the six links only, the rest scrolled out of sight."""
    page = new_page("phone", 360, 640)
    height = page.evaluate("document.querySelector('header.top').getBoundingClientRect().height")
    tops = page.evaluate(
        "[...document.querySelectorAll('.topnav a')].map((a) => Math.round(a.getBoundingClientRect().top))"
    )
    shot(page, "first-phone-header")
    assert len(set(tops)) == 1, tops  # the nav is one row
    assert height <= 75, height
    # every link is on the screen
    right = page.evaluate(
        "Math.max(...[...document.querySelectorAll('.topnav a')].map((a) => a.getBoundingClientRect().right))"
    )
    assert right <= 360, right


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_the_daily_leaderboard_counts_one_attempt(new_page):
    page = new_page("daisy")
    page.goto(page.url.split("#")[0] + "#daily=racing-aces")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.click("#to-leaderboard")
    page.wait_for_selector("#leaderboard tr.mine")
    head = page.locator("h2:has-text('Leaderboard')").inner_text()
    assert re.search(r"· 1 attempt(?!s)", head), head
