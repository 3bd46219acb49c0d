"""The header's nav marks the section of the page shown, and only that: a race's page marked
"Lobby" (and a replay "Watch", the live races), though the player was on neither. A race belongs
to the section that holds it: an arena's race to Arenas, a daily attempt to Daily (their replays
too), any other race to none. Watching a live race is the Watch section's; following an arena's
featured race (#watch=RACE&arena=ARENA), the arena's. The marked item says so to a screen reader
too: `aria-current` "page" on the section's own page, "true" on a page inside it."""

from __future__ import annotations

import re

import pytest
from must import must
from playwright.sync_api import expect
from waiting import wait_until

from protocol import messages as m

from .arena_races import arena_server
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """Clients may create arenas (none is scheduled); the daily challenge runs as everywhere."""
    srv = arena_server(tmp_path_factory.mktemp("web-nav"), countdown_ms=1200)
    yield srv
    srv.stop()


MARKED = """() => [...document.querySelectorAll('.topnav a')]
  .filter((a) => a.classList.contains('on') || a.hasAttribute('aria-current'))
  .map((a) => `${a.dataset.nav}:${a.classList.contains('on') ? 'on' : 'off'}:${a.getAttribute('aria-current')}`)"""


def expect_marked(page, section: str | None, current: str = "page") -> None:
    """The nav marks `section` alone (None: no item), with aria-current `current`."""
    want = [f"{section}:on:{current}"] if section else []
    seen: list[str] = []

    def marked() -> bool:
        seen[:] = page.evaluate(MARKED)
        return seen == want

    try:
        wait_until(marked, what="the nav's mark")
    except TimeoutError:
        raise AssertionError(f"{page.url}: the nav marks {seen}, not {want}") from None


def go(page, hash_: str) -> None:
    page.goto(page.url.split("#")[0] + hash_)


def test_a_race_of_the_lobby_and_its_replay_mark_no_section(new_page, make_bot):
    page = new_page("navin")
    expect_marked(page, "lobby")
    practice_started(page, "racing-aces")
    expect_marked(page, None)  # was: Lobby
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel h2")).to_be_visible()
    expect_marked(page, None)  # the result, the same race page
    page.click("#to-replay")
    page.wait_for_selector("#replay-page")
    expect_marked(page, None)  # was: Watch, the live races
    page.click('.topnav a[data-nav="lobby"]')
    expect_marked(page, "lobby")
    # a race watched: someone else's (your own opens as its race page), waiting for its players
    host = make_bot("nav-host")
    watched = host.call(lambda c: c.create("racing-aces", 2)).race
    go(page, f"#watch={watched}")
    page.wait_for_selector("#watch-page #players li")
    expect_marked(page, "watch", "true")
    # the pages of the sections themselves, and the pages inside them
    for hash_, section, current in [
        ("#watch", "watch", "page"),
        ("#daily", "daily", "page"),
        ("#arenas", "arena", "page"),
        ("#howto", "howto", "page"),
        ("#account", "account", "page"),
        ("#profile", "account", "true"),
        ("#ratings", "account", "true"),
    ]:
        go(page, hash_)
        expect_marked(page, section, current)


def test_an_arena_race_marks_the_arenas(new_page, make_bot):
    rival = make_bot("nav-rival")
    rival.call(
        lambda c: c.request(
            m.ArenaCreate(
                arena="nav-cup", game="racing-aces", duration_ms=120_000, time_limit_s=60, name="Nav Cup"
            )
        )
    )
    page = new_page("navarre")
    go(page, "#arena=nav-cup")
    expect_marked(page, "arena", "true")
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")
    rival.call(lambda c: c.request(m.ArenaJoin(arena="nav-cup")))
    page.wait_for_url(re.compile(r"#race="), timeout=30_000)  # paired: the race page opens
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    expect_marked(page, "arena", "true")  # was: Lobby
    go(page, f"#replay={rid}")
    expect_marked(page, "arena", "true")
    # someone else following the arena's featured race (a player's own opens as its race page)
    other = new_page("navigator")
    go(other, f"#watch={rid}&arena=nav-cup")
    other.wait_for_selector("#watch-page #players li")
    expect_marked(other, "arena", "true")


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_a_daily_attempt_marks_the_daily(new_page):
    page = new_page("navya")
    go(page, "#daily=racing-aces")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    page.wait_for_selector("#race-title")
    expect(page.locator("#race-title")).to_contain_text("Daily")
    expect_marked(page, "daily", "true")  # was: Lobby
    # the same attempt opened where this browser does not know it (another device): its
    # snapshot says it is a daily attempt, and the nav follows
    page.evaluate("localStorage.removeItem('solrace.dailies')")
    page.reload()
    expect(page.locator("#race-title")).to_contain_text("Daily")
    expect_marked(page, "daily", "true")
