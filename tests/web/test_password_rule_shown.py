"""A new password's box states the password rule before anything is sent, tied to the box for a
screen reader (aria-describedby): the claim form's and the change-password form's. A player learnt
the rule only once a password was refused. The rule's numbers are the server's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from protocol.accounts import PASSWORD_MAX, PASSWORD_MIN

from .accounts_pages import claim
from .conftest import shot

pytestmark = pytest.mark.timeout(120)

ACCOUNTS_JS = Path(__file__).resolve().parents[2] / "client/web/static/js/accounts.js"
RULE = f"{PASSWORD_MIN} to {PASSWORD_MAX} characters"


def test_the_rules_numbers_are_the_servers() -> None:
    js = ACCOUNTS_JS.read_text()
    assert re.search(rf"const PASSWORD_MIN = {PASSWORD_MIN};", js)
    assert re.search(rf"const PASSWORD_MAX = {PASSWORD_MAX};", js)


def described_by(page, box) -> str:
    """The words a screen reader reads as `box`'s description (its aria-describedby's elements)."""
    return box.evaluate(
        """(el) => (el.getAttribute("aria-describedby") || "").split(/\\s+/).filter(Boolean)
                     .map((id) => document.getElementById(id)?.textContent || "").join(" ")"""
    )


def test_the_claim_forms_password_box_states_the_rule(new_page):
    page = new_page("rulo", width=390, height=844)
    page.goto(page.url.split("#")[0] + "#account")
    box = page.locator("#claim-form input[name=password]")
    expect(box).to_be_visible()
    rule = page.locator("#claim-form").get_by_text(RULE)
    expect(rule).to_be_visible()
    assert RULE in described_by(page, box)
    shot(page, "password-rule-claim-390")
    # refused (a reserved name): the refusal's reason joins the rule, and goes with it again
    page.fill("#claim-form input[name=account]", "admin")
    box.fill("long enough password")
    page.click("#claim-form button[type=submit]")
    expect(page.locator("#claim-form .form-error")).to_have_count(1)
    said = described_by(page, box)
    assert RULE in said and page.locator("#claim-form .form-error").inner_text() in said, said
    box.fill("another long password")
    expect(page.locator("#claim-form .form-error")).to_have_count(0)
    assert RULE in described_by(page, box)


def test_the_new_password_box_states_the_rule(new_page):
    page = new_page("rula")
    claim(page, "rula", "correct horse battery")
    page.goto(page.url.split("#")[0] + "#account")
    box = page.locator("#password-form input[name=new]")
    expect(box).to_be_visible()
    expect(page.locator("#password-form").get_by_text(RULE)).to_be_visible()
    assert RULE in described_by(page, box)
    shot(page, "password-rule-change-1280")
