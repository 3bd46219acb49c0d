"""The replay's result table writes a player's cards home as the result panel does: "home/total"."""

from __future__ import annotations

import re

import pytest

from .test_browser import finished_solo_race

pytestmark = pytest.mark.timeout(180)

HOME_CELL = "tbody tr:first-child td:nth-child(4)"  # the "Home" column of the ranking


def test_the_replay_writes_cards_home_as_the_result_does(new_page):
    page = new_page("ada")
    finished_solo_race(page)
    on_result = page.locator(f"#result-panel .ranking {HOME_CELL}").inner_text()
    assert re.fullmatch(r"\d+/\d+", on_result), on_result
    page.click("#to-replay")
    page.wait_for_selector(f"#replay-page .ranking {HOME_CELL}")
    assert page.locator(f"#replay-page .ranking {HOME_CELL}").inner_text() == on_result
