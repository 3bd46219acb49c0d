"""A hint's marks on the board (the move's piles glowing) go when your game ends: they held
until the next move, and with none to come they glowed on the finished board for good, under
the result, pointing at a move nobody can make."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import wait_board
from .test_lobby_practice import practise

pytestmark = pytest.mark.timeout(120)


def test_the_hint_marks_go_with_the_game(new_page):
    page = new_page("hilda", width=1280, height=800)
    practise(page, "racing-aces")
    page.click("#ready-btn")
    wait_board(page)
    page.click("#hint-btn")
    expect(page.locator("#board .hint-from")).not_to_have_count(0)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel h2")).to_be_visible()
    expect(page.locator("#board .hint-from, #board .hint-to")).to_have_count(0)
