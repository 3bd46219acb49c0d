"""A login shows it is at work until its answer: it can take seconds (the password's hash is slow
by design), and the form said nothing meanwhile, its button pressable again. Now the button is
disabled and says "Logging in…", the form aria-busy; a refusal puts the form back as it was."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)

# hold the login's request until the test lets it go (window.releaseLogin)
HOLD = """async () => {
  const { conn } = await import("/js/state.js");
  const request = conn.request.bind(conn);
  conn.request = (msg, ...rest) => msg.t !== "login" ? request(msg, ...rest)
    : new Promise((go) => { window.releaseLogin = go; }).then(() => request(msg, ...rest));
}"""


def test_the_login_form_is_busy_until_its_answer(new_page):
    page = new_page("lois")
    page.goto(page.url.split("#")[0] + "#account")
    form = page.locator("#login-form")
    button = form.locator("button[type=submit]")
    expect(button).to_have_text("Log in")
    page.evaluate(HOLD)
    form.locator("input[name=account]").fill("nobody-here")
    form.locator("input[name=password]").fill("long enough password")
    button.click()
    expect(button).to_have_text("Logging in…")
    expect(button).to_be_disabled()
    expect(form).to_have_attribute("aria-busy", "true")
    page.wait_for_function("() => typeof window.releaseLogin === 'function'")
    page.evaluate("() => window.releaseLogin()")
    # refused (no such account): the form as it was, the refusal said in it
    expect(form.locator(".form-error[role=alert]")).to_have_count(1)
    expect(button).to_have_text("Log in")
    expect(button).to_be_enabled()
    expect(form).not_to_have_attribute("aria-busy", "true")
