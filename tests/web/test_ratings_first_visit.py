"""An account that has played no rated race yet, on a game's rating board: its line says where it
starts in plain words, as its profile does ("starts at 1000"). It said "(you start at 1000?)",
the provisional "?" read as a question about the player's own start.
Screenshot: test-artifacts/web/ratings-first-visit.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .accounts_pages import base, claim
from .conftest import shot

pytestmark = pytest.mark.timeout(120)


def test_a_new_accounts_start_is_said_plainly(new_page):
    page = new_page("newby")
    claim(page, "newby", "newby's secret")
    page.goto(base(page) + "#ratings=fours-up")
    standing = page.locator("#my-standing")
    expect(standing).to_have_text(
        "You: no rated Fours Up race yet (you start at 1000). Play 10 rated races to be on the board."
    )
    shot(page, "ratings-first-visit")
