"""The note of a browser logged out from elsewhere, in headless Chromium: after a password change
on another device this browser becomes a new guest, and says so where the player sees it, on top
of the page however far it is scrolled, not under the "Reconnected." banner that follows, and
until the player dismisses it."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect
from waiting import DEADLINE, wait_until

from .accounts_pages import claim, login
from .conftest import shot

pytestmark = pytest.mark.timeout(180)

MS = DEADLINE * 1000

# Whether the note is within the window and drawn on top at its middle (nothing covers it).
ON_SCREEN = """() => {
  const el = document.querySelector("#session-note");
  if (!el || el.hidden) return false;
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.top >= 0 && r.bottom <= innerHeight && r.height > 0 && el.contains(hit);
}"""


def test_a_password_changed_elsewhere_is_told_on_screen_until_dismissed(new_page):
    first = new_page("gwen", height=600)
    claim(first, "gwen", "gwen's secret")
    first.goto(first.url.split("#")[0] + "#/")
    first.wait_for_selector("#main .tile")
    first.evaluate("window.scrollTo(0, 500)")  # reading further down the lobby
    assert first.evaluate("scrollY") > 100

    second = new_page("someone")
    login(second, "gwen", "gwen's secret")
    second.fill("#password-form input[name=old]", "gwen's secret")
    second.fill("#password-form input[name=new]", "gwen's new secret")
    second.click("#password-form button[type=submit]")

    note = first.locator("#session-note")
    expect(note).to_contain_text("You were logged out — log in again", timeout=MS)
    # the reconnect that follows shows its banner too, under the note, not over it
    first.wait_for_selector(".conn-banner.back:not([hidden])")
    assert first.evaluate(ON_SCREEN), "the note is off screen or covered"
    assert first.evaluate("scrollY") > 100
    shot(first, "session-note-password-changed")

    # it lasts: once the reconnect banner is gone, still there
    first.wait_for_selector("#conn-banner", state="hidden")
    time.sleep(1)
    assert first.evaluate(ON_SCREEN)
    first.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    wait_until(lambda: first.evaluate(ON_SCREEN), what="the note on screen at the bottom of the page")

    first.click("#session-note-close")
    expect(note).to_be_hidden(timeout=MS)
