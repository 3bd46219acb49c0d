"""The daily page says why it has no day to show for a day the server refuses (`bad-message`,
field `date`, docs/protocol.md §5 History window): one picked before the days it keeps (the Day
picker goes back to any year), or no day at all (2026-02-30 in a link). It said "The server
refused a malformed request.", a word of the protocol's, of a day picked in the date box."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(
    ("date", "words"),
    [("1999-01-01", "1999-01-01 is too long ago"), ("2026-02-30", '"2026-02-30" is not a day (YYYY-MM-DD)')],
)
def test_a_day_the_server_refuses_is_said_plainly(new_page, date, words):
    page = new_page("dora", width=390, height=844)
    page.goto(page.url.split("#")[0] + f"#daily=racing-aces&date={date}")
    said = page.locator("#main .daily .error-panel h2")
    expect(said).to_contain_text(words)
    assert "malformed" not in said.inner_text()
    # and the way back to a day there is
    expect(page.locator("#main .daily-bar a", has_text="Today")).to_be_visible()


def test_the_day_picker_goes_back_to_an_old_day(new_page):
    """Picked in the Day box, as a player would."""
    page = new_page("dot", width=1280, height=800)
    page.goto(page.url.split("#")[0] + "#daily=fours-up")
    page.locator("#daily-date").fill("2001-09-10")
    expect(page.locator("#main .daily .error-panel h2")).to_contain_text("2001-09-10 is too long ago")
