"""The race page's play-time option, "Mark the cards that can move", goes when your game ends:
it stayed under the board on the game-over cover and on the race's result (a reload of the
finished race's page too), offering to mark cards that can no longer move. The pile legend
beside it stays: the final board is still shown, and the legend names its piles."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, wait_board
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)


def finish_my_game(page) -> None:
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_option_goes_with_the_race_on_its_result(new_page, width, height):
    page = new_page("ursula", width=width, height=height)
    practice_started(page, "racing-aces")
    expect(page.locator("#mark-movable")).to_be_visible()  # while you play
    finish_my_game(page)
    expect(page.locator("#result-panel h2")).to_be_visible()
    expect(page.locator("#board")).to_be_visible()  # the final board, under the result
    expect(page.locator("#mark-movable")).to_be_hidden()
    expect(page.locator("#legend")).to_be_visible()
    shot(page, f"result-no-play-option-{width}", full_page=True)
    # the finished race's page opened again: drawn straight as a result
    page.reload()
    expect(page.locator("#result-panel h2")).to_be_visible()
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#mark-movable")).to_be_hidden()
    expect(page.locator("#legend")).to_be_visible()


def test_the_option_goes_under_the_game_over_cover(new_page, make_bot):
    """Your game over while a rival still plays: the cover lies over the board, nothing to mark."""
    page = new_page("ulrich")
    rid = create_in_ui(page, "racing-aces", 2)
    rival = make_bot("plays-on")
    rival.call(lambda c: c.join(rid))
    rival.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    expect(page.locator("#mark-movable")).to_be_visible()
    finish_my_game(page)
    expect(page.locator("#cover-msg")).to_be_visible()
    expect(page.locator("#mark-movable")).to_be_hidden()
    # its Finish pressed and gone, the focus went to the cover's words, not lost with the option
    expect(page.locator("#cover-msg")).to_be_focused()


def test_the_focus_on_the_option_goes_to_the_result(new_page):
    """The game ends with the focus on the option (ticked from the keyboard, then the clock ran
    out, say): hidden with the game, it leaves the focus to the result's heading, as a board's
    card does, not to the page's body."""
    page = new_page("uma")
    practice_started(page, "racing-aces")
    page.focus("#mark-movable")
    page.keyboard.press("Space")
    expect(page.locator("#mark-movable")).to_be_checked()
    expect(page.locator("#mark-movable")).to_be_focused()
    # ended without a click on Finish my game (which would take the focus)
    page.once("dialog", lambda d: d.accept())
    page.evaluate("import('/js/race_play.js').then((m) => m.finishGame())")
    expect(page.locator("#result-panel h2")).to_be_visible()
    expect(page.locator("#mark-movable")).to_be_hidden()
    expect(page.locator("#result-title")).to_be_focused()
