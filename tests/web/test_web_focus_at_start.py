"""Keyboard play from the lobby to the board, as a screen reader's user goes. "Practice" left the
focus on the page (#main: two more Tabs to "I'm ready"), and pressing "I'm ready" with Enter
dropped the focus to the page's body when the race started: the lobby panel holding it was
gone, nothing took it, a screen reader said nothing and Tab started over from the header.
Now "Practice" puts the focus on "I'm ready" (as a practice's new deal does), and the board's
stock takes it at the start (as the game-over cover does at the end)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import race_id, wait_board

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 740)])
def test_practice_by_keyboard_focuses_i_am_ready(new_page, width, height):
    page = new_page("keya", width=width, height=height)
    page.focus('.tile[data-game="racing-aces"] [data-act="practice"]')
    page.keyboard.press("Enter")
    race_id(page)
    expect(page.locator("#lobby-panel h2")).to_have_text("A race of your own")
    expect(page.locator("#ready-btn")).to_be_focused()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (375, 740)])
def test_the_board_takes_the_focus_at_the_start(new_page, width, height):
    page = new_page("keyb", width=width, height=height)
    page.click('.tile[data-game="racing-aces"] [data-act="practice"]')
    race_id(page)
    page.focus("#ready-btn")
    page.keyboard.press("Enter")
    wait_board(page)
    stock = page.locator('#board .pile[data-pile="s"]')
    expect(stock).to_be_focused()
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith("stock")
    # the keys play from there: "d" draws, and the focus stays on the board
    n = page.evaluate("window.solrace.app.you.n")
    page.keyboard.press("d")
    page.wait_for_function(f"window.solrace.app.you.n > {n}")
    page.wait_for_function("!!document.activeElement.closest('#board')")
    shot(page, f"focus-at-start-{width}")


def test_a_player_who_moved_the_focus_keeps_it_at_the_start(new_page):
    """Only a focus that was lost goes to the board: one the player put elsewhere stays there."""
    page = new_page("keyc")
    page.click('.tile[data-game="racing-aces"] [data-act="practice"]')
    race_id(page)
    page.focus("#ready-btn")
    page.keyboard.press("Enter")
    page.focus("#name")  # while the countdown runs
    wait_board(page)
    expect(page.locator("#name")).to_be_focused()
