"""The arena page and the race page around your own arena race, in headless Chromium: Berserk
offered only until the race starts (the server refuses it after: `race-started`), the featured
race not offered to watch when it is yours (the server refuses: `is-player`), and the result of
your last arena race carried to the next race the arena pairs you into (it pairs you again
within moments of the end, before the result could be read)."""

from __future__ import annotations

import re

import pytest
from must import must
from playwright.sync_api import expect
from waiting import wait_until

from protocol import messages as m

from .arena_races import arena_server
from .conftest import shot
from .test_browser import play_by_clicking, wait_board

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """Clients may create arenas, none is scheduled, fast loops; a countdown long enough to see
    the arena page before the start, under load."""
    srv = arena_server(tmp_path_factory.mktemp("web-arena-own"), countdown_ms=6000)
    yield srv
    srv.stop()


def base(page) -> str:
    return page.url.split("#")[0]


def paired_with(page, rival, arena: str, name: str) -> str:
    """`rival` creates `arena`; the page joins it on its page, then the rival: the race the
    arena pairs them into opens on the page, in its countdown. Returns the race's id."""
    rival.call(
        lambda c: c.request(
            m.ArenaCreate(arena=arena, game="racing-aces", duration_ms=180_000, time_limit_s=60, name=name)
        )
    )
    page.goto(base(page) + f"#arena={arena}")
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")
    rival.call(lambda c: c.request(m.ArenaJoin(arena=arena)))
    page.wait_for_url(re.compile(r"#race="), timeout=30_000)
    found = re.search(r"#race=([\w-]+)", page.url)
    assert found, page.url
    return found.group(1)


def on_the_arena_page_in_its_one_race(page, rival, arena: str, name: str) -> str:
    """Paired with `rival` (who withdraws: one race only), back on the arena's page, which
    shows that race as ours: its id."""
    rid = paired_with(page, rival, arena, name)
    rival.call(lambda c: c.request(m.ArenaWithdraw(arena=arena)))
    page.goto(base(page) + f"#arena={arena}")
    page.wait_for_selector(f'#arena-current[href="#race={rid}"]')
    return rid


def test_arena_page_offers_berserk_only_until_the_start(new_page, make_bot):
    rival = make_bot("own-rival")
    page = new_page("own-racer")
    rid = on_the_arena_page_in_its_one_race(page, rival, "own-cup", "Own Cup")
    # in the countdown: Berserk is offered
    page.wait_for_selector("#arena-berserk")
    shot(page, "arena-own-race-countdown")

    # once the race runs, the server refuses a berserk: the page no longer offers it
    wait_until(
        lambda: rival.call(lambda c: c.request(m.Resync(race=rid))).race.status == "running",
        interval=0.2,
        what="the race's start",
    )
    expect(page.locator("#arena-berserk")).to_have_count(0)
    expect(page.locator(f'#arena-current[href="#race={rid}"]')).to_have_count(1)
    shot(page, "arena-own-race-running")


def test_arena_page_never_offers_to_watch_your_own_race(new_page, make_bot):
    rival = make_bot("featured-rival")
    page = new_page("featured-racer")
    rid = on_the_arena_page_in_its_one_race(page, rival, "featured-cup", "Featured Cup")
    # the featured race is ours: the way back to it, not "Watch it" (spectating it is refused)
    page.wait_for_selector("#arena-featured-mine")
    assert page.locator("#arena-watch").count() == 0
    shot(page, "arena-featured-is-yours")
    page.click("#arena-featured-mine a")
    page.wait_for_url(re.compile(rf"#race={rid}$"))
    wait_board(page)


def test_the_last_arena_race_result_goes_to_the_next_race(new_page, make_bot):
    rival = make_bot("next-rival")
    page = new_page("next-racer")
    first = paired_with(page, rival, "next-cup", "Next Cup")
    wait_board(page)

    # both move (an absent player is withdrawn) and finish: both stay joined, and the arena
    # pairs us again
    assert play_by_clicking(page, 2)
    rival.call(lambda c: c.move(first, "draw"))
    rival.call(lambda c: c.finish(first))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_url(re.compile(r"#race=(?!" + first + r")"), timeout=30_000)
    second = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    rival.call(lambda c: c.request(m.ArenaWithdraw(arena="next-cup")))

    # the new race's countdown and its side panel say how the last race went
    last = page.evaluate("window.solrace.app.lastArena")
    assert last["race"] == first
    place = f"{'1st' if last['rank'] == 1 else '2nd'} of 2"
    expect(page.locator("#countdown-last")).to_contain_text(f"Your last race: {place}")
    expect(page.locator("#countdown-last")).to_contain_text(f"{last['home']}/156 home")
    shot(page, "arena-next-race-countdown")
    expect(page.locator("#last-race-text")).to_contain_text(place)
    expect(page.locator("#last-race-text")).to_contain_text("arena point")  # once the arena counted it
    assert page.locator("#last-race-replay").get_attribute("href") == f"#replay={first}"
    assert page.evaluate("window.solrace.app.race.race") == second

    # not in the result of the new race: that one is its own
    wait_board(page)
    rival.call(lambda c: c.finish(second))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    expect(page.locator("#last-race")).to_be_hidden()
    shot(page, "arena-next-race-result", full_page=True)
