"""A daily attempt's result on a phone (390x844): no empty gap between the board and the race's
line under it. The board kept room under its fanned piles for the cards they were expected to
hold, so as not to grow under a player as they play; with the game over, nothing is to come. Screenshots: test-artifacts/web/daily-result-gap-*.png."""

from __future__ import annotations

import re

import pytest

from .conftest import shot
from .test_browser import wait_board

pytestmark = pytest.mark.timeout(180)


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
@pytest.mark.parametrize("game", ["fours-up", "racing-aces"])
def test_the_daily_result_leaves_no_gap_under_the_board(new_page, game):
    page = new_page(f"gap-{game[:4]}", width=390, height=844)
    page.goto(page.url.split("#")[0] + f"#daily={game}")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel #sealed")
    # the lowest card (or empty pile's outline) on the board, and the race's line under it
    low, line = page.evaluate(
        """() => [Math.max(...[...document.querySelectorAll("#board .card, #board .slot")].map((e) => e.getBoundingClientRect().bottom)),
                  document.querySelector("#mini-status").getBoundingClientRect().top]"""
    )
    # (the board's own margin and the line's: a few px; the room a fan kept for cards to come was 120 and more)
    assert 0 <= line - low <= 40, (low, line)
    shot(page, f"daily-result-gap-{game}", full_page=True)
