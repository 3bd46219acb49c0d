"""A spectator is told which numbers are current: the side panel's progress (cards home, moves) is
live, the boards come one spectator delay late (the server's SPECTATOR_DELAY, given in the
welcome's limits: an anti-cheat delay). A spectator saw 49 moves beside the boards' 35 and nothing
said which was current. Said under the boards, where they are read, with the welcome's delay."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_watch_notes import a_race_of

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_the_watch_page_says_the_boards_are_late_and_the_counts_live(new_page, make_bot, width, height):
    a, b = make_bot("ann-bot"), make_bot("ben-bot")
    rid = a_race_of(a, b)
    page = new_page("looker", width=width, height=height)
    delay_s = round(page.evaluate("window.solrace.app.me.limits.SPECTATOR_DELAY") / 1000)
    page.evaluate(f"location.hash = '#watch={rid}'")
    page.wait_for_function("document.querySelectorAll('.spec-board').length === 2")
    a.play(rid, delay=0.2)
    b.play(rid, delay=0.2)
    page.wait_for_function("document.querySelectorAll('.spec-board .pile').length > 0")
    said = f"Boards {delay_s} s behind (anti-cheat) · the progress bars and their counts are live"
    line = page.locator("#main").get_by_text(said)
    expect(line).to_be_visible()
    # under the boards, where they are read
    below = page.evaluate(
        """() => { const boards = [...document.querySelectorAll(".spec-board")].map((b) => b.getBoundingClientRect().bottom);
                   return [Math.max(...boards), [...document.querySelectorAll("#main p")].find((p) => p.textContent.includes("behind (anti-cheat)")).getBoundingClientRect().top]; }"""
    )
    assert below[1] >= below[0], below
    # and the note over the boards says it too
    expect(page.locator(".delay-note")).to_contain_text(f"{delay_s} s late (anti-cheat)")
    expect(page.locator(".delay-note")).to_contain_text("the progress bars and their counts are live")
    line.scroll_into_view_if_needed()
    shot(page, f"watch-live-counts-{width}", full_page=True)
