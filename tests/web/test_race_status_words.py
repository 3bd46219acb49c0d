"""The race page's status badge reads apart from its "Lobby" button: a race not started yet
(the protocol's `lobby` status) said "lobby" beside a "Lobby" button that goes back to the lobby
page, two words alike for two different things. The badge says "not started"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import wait_board
from .test_lobby_practice import practise

pytestmark = pytest.mark.timeout(180)


def test_a_race_not_started_says_so_beside_the_lobby_button(new_page):
    page = new_page("stan")
    practise(page, "racing-aces")
    badge = page.locator("#race-status")
    expect(badge).to_have_text("not started")
    expect(page.locator('a.btn[href="#/"]', has_text="Lobby")).to_be_visible()
    page.click("#ready-btn")
    wait_board(page)
    expect(badge).to_have_text("running")
