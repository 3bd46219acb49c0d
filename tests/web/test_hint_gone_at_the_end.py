"""A hint goes when your game ends: its marks on the board (the move's piles glowing) held until
the next move, and with none to come they glowed on the finished board for good, under the
result, pointing at a move nobody can make; its words ("Hint: draw from the stock", under the
side buttons) stayed up to 6 s beside the result."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(120)


def hint_then_finish(page) -> None:
    """A practice race with a hint on screen, then Finish my game: its result shown."""
    practice_started(page, "racing-aces")
    page.click("#hint-btn")
    expect(page.locator("#board .hint-from")).not_to_have_count(0)
    expect(page.locator("#race-notes .toast.hint")).to_be_visible()
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel h2")).to_be_visible()


def test_the_hint_marks_go_with_the_game(new_page):
    page = new_page("hilda", width=1280, height=800)
    hint_then_finish(page)
    expect(page.locator("#board .hint-from, #board .hint-to")).to_have_count(0)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_hint_words_go_with_the_game(new_page, width, height):
    page = new_page("hilary", width=width, height=height)
    hint_then_finish(page)
    # Gone by the time the result shows (the same redraw), not 6 s later: counted at once, a wait
    # for them to go would pass when the toast's own timer took them.
    assert page.locator(".toast.hint").count() == 0, page.locator(".toast.hint").all_inner_texts()
