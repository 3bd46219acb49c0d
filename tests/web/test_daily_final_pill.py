"""A closed day's heading on the daily page: its two marks, "closed" and "final", touched
("closedfinal" to a screen reader, one word to the eye) and "final" said nothing of what was
final. They stand apart now, the second "results final", with a tooltip saying what it means."""

from __future__ import annotations

import datetime

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


def test_a_closed_days_marks_stand_apart(new_page):
    page = new_page("dina", width=390, height=844)
    yesterday = (datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)).isoformat()
    page.goto(page.url.split("#")[0] + f"#daily=fours-up&date={yesterday}")
    final = page.locator("#daily-final")
    expect(final).to_have_text("results final")
    expect(final).to_have_attribute("title", "The leaderboard is frozen and its top replays are published")
    heading = final.locator("xpath=..")
    expect(heading).to_have_text(f"Fours Up · {yesterday} closed results final")
    gap = page.evaluate(
        """() => { const f = document.querySelector('#daily-final'); const c = f.previousElementSibling;
                   return f.getBoundingClientRect().left - c.getBoundingClientRect().right; }"""
    )
    assert gap > 1 or page.evaluate(
        "document.querySelector('#daily-final').getBoundingClientRect().top > document.querySelector('#daily-final').previousElementSibling.getBoundingClientRect().top"
    ), gap
