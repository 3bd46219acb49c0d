"""A small board's pile labels are whole. A replay's board on a phone (360x740) draws cards
22-24 px wide, and its labels, upper case, were cut with an ellipsis: "WAS…" and "STO…" above the
waste and the stock, whose group is one card wide. Under 30 px the labels are not upper case
(board.js small-cards): "Waste" fits. Screenshot: test-artifacts/web/small-board-labels-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)

CUT = """() => [...document.querySelectorAll('.replay-board .glabel')]
    .filter((l) => l.scrollWidth > l.clientWidth).map((l) => l.textContent)"""


@pytest.mark.parametrize("game", ["racing-aces", "double-aces-and-kings"])
def test_a_replay_board_on_a_phone_cuts_no_label(new_page, game):
    page = new_page("lab", width=360, height=740)
    practice_started(page, game)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.click("#to-replay")
    expect(page.locator(".replay-board .glabel", has_text="Waste")).to_have_count(1)
    # the premise: a board of small cards (one wider has room for the upper case)
    cw = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.replay-board')).getPropertyValue('--cw'))"
    )
    assert cw < 30, cw
    assert page.evaluate(CUT) == []
    shot(page, f"small-board-labels-{game}")
