"""Your game over while the race runs, its words come into sight. On a phone (390x844) the
game-over cover's words ("You stopped with 0/208 cards home. Your result is kept…", Back to the
lobby) lie at the top of the board; a player who pressed Finish my game under a tall board
(Double Aces and Kings) saw only the dimmed cards, the words above the screen and the focus on
the page's body. Now the words take the focus when it was lost (race_play.js), which scrolls
them into view and has a screen reader say them. Screenshot:
test-artifacts/web/game-over-in-sight.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, race_against

pytestmark = pytest.mark.timeout(180)


def test_finish_my_game_under_a_tall_board_shows_the_cover_words(new_page, make_bot):
    page = new_page("gus", width=390, height=844)
    rival = make_bot("still-playing")
    rid = create_in_ui(page, "double-aces-and-kings", 2)
    race_against(page, rival, rid)
    finish = page.locator("#finish-btn")
    finish.scroll_into_view_if_needed()
    page.once("dialog", lambda d: d.accept())
    finish.click()
    words = page.locator("#cover-msg")
    expect(words).to_contain_text("You stopped with 0/208 cards home.")
    expect(words).to_be_focused()
    expect(words).to_be_in_viewport()
    # the next Tab stop is the cover's own button, not the page's first
    page.keyboard.press("Tab")
    expect(page.locator("#cover-lobby")).to_be_focused()
    shot(page, "game-over-in-sight")
