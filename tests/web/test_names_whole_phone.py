"""On a phone (390x844) a player's name in a result's ranking (the race page's, the replay's, a
daily leaderboard's: the same cell) shows whole, its marks too: the cell cut it at 84 px with
an ellipsis ("walker1280…", "Random bot…"), and the ✓ of an account or the "bot" mark after it
was cut with it. A long name now wraps in its cell, and the table still fits the screen.
Screenshot: test-artifacts/web/names-whole-phone.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .accounts_pages import claim
from .conftest import shot
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)

NAME = "longnamedplayer"  # an account: its ✓ follows the name

CUT = """(sel) => [...document.querySelectorAll(sel)].map((c) => {
  const r = c.getBoundingClientRect();
  const marks = [...c.querySelectorAll('*')].map((m) => m.getBoundingClientRect());
  return { text: c.innerText, cut: c.scrollWidth > c.clientWidth + 1,
           marksInside: marks.every((m) => m.left >= r.left - 1 && m.right <= r.right + 1 && m.width > 0),
           marks: marks.length };
})"""


def test_a_long_name_shows_whole_in_a_phones_ranking(new_page):
    page = new_page(NAME, width=390, height=844)
    claim(page, NAME, "correct horse battery")
    page.goto(page.url.split("#")[0] + "#/")
    practice_started(page, "fours-up")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel .ranking td.name")).to_have_count(1)
    cells = page.evaluate(CUT, "#result-panel .ranking td.name")
    assert cells == [
        {"text": cells[0]["text"], "cut": False, "marksInside": True, "marks": cells[0]["marks"]}
    ], cells
    assert cells[0]["marks"] >= 1 and NAME in cells[0]["text"], cells
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "names-whole-phone")
