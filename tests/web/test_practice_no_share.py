"""A practice (a private race of one seat) offers no "Copy race link": there is nobody to share it
with. Its lobby panel already left out the share box; the side buttons still had the copy, before
the start, through the race and on its result. A race of two keeps it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import create_in_ui, wait_board
from .test_lobby_practice import practise

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_a_practice_has_no_race_link_to_copy(new_page, width, height):
    page = new_page("solo", width=width, height=height)
    practise(page, "rouge-et-noir")
    side = page.locator("#side-actions")
    lobby = side.get_by_role("link", name="Lobby")
    expect(lobby).to_be_visible()  # the side buttons are drawn
    expect(side.get_by_text("Copy race link")).to_have_count(0)
    page.click("#ready-btn")
    wait_board(page)
    expect(page.locator("#finish-btn")).to_be_visible()
    expect(side.get_by_text("Copy race link")).to_have_count(0)
    page.once("dialog", lambda d: d.accept())  # "Finish your game now?"
    page.click("#finish-btn")
    expect(page.locator("#finish-btn")).to_have_count(0)
    expect(lobby).to_be_visible()
    expect(side.get_by_text("Copy race link")).to_have_count(0)


def test_a_race_of_two_keeps_its_race_link(new_page):
    page = new_page("duo")
    create_in_ui(page, "rouge-et-noir", 2)
    expect(page.locator("#side-actions").get_by_text("Copy race link")).to_be_visible()
