"""An account form's refusal goes once a field is edited. It said why what was sent was refused
("that name is taken." for the name sent); kept, it went on saying so over another name typed
since, while the browser's own check (a password under 8 characters) kept the form from being
sent again, so nothing ever replaced it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("form", ["claim-form", "login-form"])
def test_a_refusal_goes_once_a_field_is_edited(new_page, form):
    page = new_page("edith", width=390, height=844)
    page.goto(page.url.split("#")[0] + "#account")
    name = page.locator(f"#{form} input[name=account]")
    password = page.locator(f"#{form} input[name=password]")
    # refused by the server: a reserved name to keep, an unknown one to log in to
    name.fill("admin" if form == "claim-form" else "nobody-here")
    password.fill("long enough password")
    page.click(f"#{form} button[type=submit]")
    refusal = page.locator(f"#{form} .form-error[role=alert]")
    expect(refusal).to_have_count(1)
    expect(name).to_have_attribute("aria-invalid", "true")
    # another name, and a password the browser itself refuses to send (minlength 8)
    name.fill("Another-name")
    password.fill("short")
    page.click(f"#{form} button[type=submit]")
    assert page.evaluate(f"() => !document.querySelector('#{form}').checkValidity()")
    expect(refusal).to_have_count(0)
    expect(name).not_to_have_attribute("aria-invalid", "true")
    expect(name).not_to_have_attribute("aria-describedby", f"{form}-error")
