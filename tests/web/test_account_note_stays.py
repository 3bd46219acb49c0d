"""What the account page's forms say ("You are now the account …", "Logged in as …") stays with
the account page: it went on to the next page the player opened within its seconds (the lobby),
at the screen's bottom, over whatever lay there."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .accounts_pages import claim
from .conftest import shot

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_the_account_note_goes_with_the_account_page(new_page, width, height):
    name = f"nola{width}"
    page = new_page(name, width=width, height=height)
    claim(page, name, "correct horse battery")
    expect(
        page.locator(".toast", has_text=f"You are now the account {name}")
    ).to_be_visible()  # said where it happened
    # to the lobby, the note looked for as the new page is drawn (the app's hashchange listener
    # runs before this one): still there just before, gone with the page, not faded out seconds later
    seen = page.evaluate(
        """async () => {
             const note = () => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("You are now the account"));
             const before = note();
             const routed = new Promise((r) => addEventListener("hashchange", r, { once: true }));
             document.querySelector(".topnav a[data-nav=lobby]").click();
             await routed;
             return { before, after: note() };
           }"""
    )
    assert seen == {"before": True, "after": False}, seen
    expect(page.locator('.tile[data-game="rouge-et-noir"]')).to_be_visible()
    shot(page, f"account-note-gone-{width}")
