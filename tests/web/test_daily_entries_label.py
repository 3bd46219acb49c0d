"""The daily page's count of attempts is everyone's (the `daily` reply's `entries`: the attempts on
the day's board, docs/protocol.md §5), and says so: "Attempts 0" beside "Play today's …" read as
the player's own attempts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


def test_the_count_of_attempts_says_whose(new_page):
    page = new_page("dora")
    page.goto(page.url.split("#")[0] + "#daily=racing-aces")
    expect(page.locator("#daily-entries")).to_have_text("0")
    # the term just before the count names it: everyone's attempts, not the player's
    term = page.locator("#daily-entries").evaluate("(dd) => dd.previousElementSibling.textContent")
    assert term == "Attempts by all players", term
