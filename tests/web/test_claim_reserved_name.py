"""A claim refused for a reserved name says so. The server refuses "admin" (and the bots' names)
as `bad-name`, which the account form explained with the rule: "names are 3 to 20 letters,
digits, _ or -, starting with a letter or digit." — which "admin" follows, so the player could
not tell what was wrong. The form's refusal is a sentence of its own, with a capital."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


def claim_as(page, name: str) -> None:
    page.fill("#claim-form input[name=account]", name)
    page.fill("#claim-form input[name=password]", "long enough password")
    page.click("#claim-form button[type=submit]")


def test_a_reserved_name_is_said_reserved(new_page):
    page = new_page("resa", width=390, height=844)
    page.goto(page.url.split("#")[0] + "#account")
    claim_as(page, "admin")
    expect(page.locator("#claim-form .form-error")).to_have_text("That name is reserved: pick another.")
    # a name that breaks the rule still hears the rule
    claim_as(page, "no spaces")
    expect(page.locator("#claim-form .form-error")).to_have_text(
        "Names are 3 to 20 letters, digits, _ or -, starting with a letter or digit."
    )
