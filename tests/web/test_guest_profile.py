"""A guest's own profile says what it is and where to go: a guest opening #profile (or their own
#profile=ID) read only "This player has no account." with no way forward. Now it says they play
as a guest, that only accounts have a profile, and links to the account page, whose form makes
this player an account. Another player's guest profile still says that player has no account.
Screenshots: test-artifacts/web/guest-profile-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(120)


def base(page) -> str:
    return page.url.split("#")[0]


@pytest.mark.parametrize("own", ["#profile", "#profile={me}"])
@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_a_guests_own_profile_leads_to_the_account_page(new_page, own, width, height):
    page = new_page("gus", width=width, height=height)
    me = page.evaluate("window.solrace.app.me.player")
    page.goto(base(page) + own.format(me=me))
    panel = page.locator("#guest-profile")
    expect(panel).to_contain_text("You are playing as a guest")
    expect(panel).to_contain_text("Only accounts have a profile")
    expect(page.locator("#account-error")).to_have_count(0)  # not "This player has no account."
    if own == "#profile":
        shot(page, f"guest-profile-{width}")
    page.click("#guest-profile-claim")
    expect(page.locator("#claim-form input[name=account]")).to_have_value("gus")  # the claim form, ready


def test_another_guests_profile_says_they_have_no_account(new_page):
    other = new_page("olga")
    them = other.evaluate("window.solrace.app.me.player")
    page = new_page("gus")
    page.goto(base(page) + f"#profile={them}")
    expect(page.locator("#account-error")).to_have_text("This player has no account.")
    expect(page.locator("#guest-profile")).to_have_count(0)
