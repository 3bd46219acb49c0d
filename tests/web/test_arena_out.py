"""Back on an arena's page after a race in which you made no move: the server has taken you out
of the pairings (docs/protocol.md §5a `arena`: `joined` false), and the page showed only "Join",
with no word of why, under "Your races" that listed the race as "#1 · 0 pts" (the place as
the link to its replay). It says now why you are not paired and to join again, and lists the
race as your place and points, with a Replay link."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from protocol import messages as m

from .arena_races import arena_server
from .conftest import shot
from .test_browser import wait_board

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    srv = arena_server(tmp_path_factory.mktemp("web-arena-out"), countdown_ms=1200)
    yield srv
    srv.stop()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_out_of_the_arena_after_a_race_without_a_move(new_page, make_bot, width, height):
    arena = f"idle-cup-{width}"
    rival = make_bot("busy-rival")
    rival.call(
        lambda c: c.request(
            m.ArenaCreate(arena=arena, game="fours-up", duration_ms=180_000, time_limit_s=60, name="Idle Cup")
        )
    )
    page = new_page("idler", width=width, height=height)
    base = page.url.split("#")[0]
    page.goto(base + f"#arena={arena}")
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")
    rival.call(lambda c: c.request(m.ArenaJoin(arena=arena)))
    page.wait_for_url(re.compile(r"#race="), timeout=30_000)
    rid = re.search(r"#race=([\w-]+)", page.url).group(1)  # type: ignore[union-attr]
    rival.call(lambda c: c.request(m.ArenaWithdraw(arena=arena)))  # one race only
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")  # no move made
    rival.call(lambda c: c.finish(rid))
    expect(page.locator("#result-panel")).to_be_visible()
    page.goto(base + f"#arena={arena}")
    races = page.locator(".arena-races li")
    expect(races).to_have_count(1)
    expect(races).to_have_text(re.compile(r"^(1st|2nd) place · 0 points · Replay$"))
    expect(races.get_by_role("link", name="Replay")).to_have_attribute("href", f"#replay={rid}")
    expect(page.locator("#arena-join")).to_be_visible()
    expect(page.locator("#arena-out")).to_have_text(
        "You are not being paired: you withdrew, or made no move in your last race. Join again to race on."
    )
    shot(page, f"arena-out-{width}", full_page=True)
