"""The result comes into sight when the race ends under the player. On a phone (390x844) the
result panel lies above the board, and "Finish my game" under it: the player who pressed it saw
the board and "done", the result out of sight above, and the focus on the page's body (the
button gone). Now the result's heading takes the focus, which scrolls it into view, when the
focus was lost (the body, the board); a player whose focus is elsewhere keeps it.
Screenshots: test-artifacts/web/result-in-sight-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_finish_my_game_brings_the_result_into_sight(new_page, width, height):
    page = new_page("fay", width=width, height=height)
    practice_started(page, "racing-aces")
    finish = page.locator("#finish-btn")
    finish.scroll_into_view_if_needed()
    page.once("dialog", lambda d: d.accept())
    finish.click()
    heading = page.locator("#result-panel h2")
    # a practice has no rival to rank against: no "#1" (with no card home, it was said so)
    expect(heading).to_have_text(re.compile(r"^Practice over: \d+/\d+ cards home$"))
    expect(heading).to_be_focused()
    expect(heading).to_be_in_viewport()
    shot(page, f"result-in-sight-{width}")


def test_a_focus_elsewhere_is_kept(new_page):
    """The name field being typed in the header when the race ends keeps the focus."""
    page = new_page("fern", width=390, height=844)
    practice_started(page, "fours-up")
    page.once("dialog", lambda d: d.accept())
    # the race ends while the player is in the name field (the finish pressed from script)
    page.focus("#name")
    page.evaluate("() => document.querySelector('#finish-btn').click()")
    expect(page.locator("#result-panel h2")).to_have_text(re.compile(r"^Practice over: "))
    expect(page.locator("#name")).to_be_focused()
