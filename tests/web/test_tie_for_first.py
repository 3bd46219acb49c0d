"""A tie for first reads as one. Players with equal ranking keys share a rank (protocol/ranking.py:
1, 1, 3), and the result told each of two tied players "★ You win the race, with 8/104 cards
home": two Fours Up players who stop at once, with the deal's eight 4s home and no move, share
first place. It now says "★ You tie for first, with 8/104 cards home" (words.js resultHeading).
Screenshot: test-artifacts/web/tie-for-first.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, race_against

pytestmark = pytest.mark.timeout(180)


def test_two_players_tied_for_first_are_told_a_tie(new_page, make_bot):
    page = new_page("tia", width=390, height=844)
    rival = make_bot("tie-rival")
    rid = create_in_ui(page, "fours-up", 2)
    race_against(page, rival, rid)
    rival.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel .ranking tbody tr")).to_have_count(2)
    ranks = page.locator("#result-panel .ranking tbody tr td:first-child").all_inner_texts()
    assert ranks == ["1", "1"], ranks  # the deal's premise: a tie for first
    expect(page.locator("#result-panel h2")).to_have_text("★ You tie for first, with 8/104 cards home")
    shot(page, "tie-for-first")


def test_the_heading_of_a_shared_rank(new_page):
    page = new_page("tao")
    heading = (
        """async ([mine, tied]) => (await import("./js/words.js")).resultHeading(false, mine, 3, 104, tied)"""
    )
    assert page.evaluate(heading, [{"rank": 1, "won": True, "home": 104}, True]) == "★ You tie for the win!"
    assert page.evaluate(heading, [{"rank": 3, "won": False, "home": 20}, True]) == "You tie for #3"
    assert page.evaluate(heading, [{"rank": 1, "won": True, "home": 104}, False]) == "★ You win the race!"
