"""The seed's check against the deal's fingerprint, on a result and on its replay, says it in a
player's words: "(checked in your browser, crypto.subtle)" put the name of the browser's API
among them. Which sha256 checked it is the line's tooltip now."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(120)

SAID = "✔ sha256(seed) matches the deal's fingerprint (checked in your browser)"


def test_the_seed_check_names_no_api(new_page):
    page = new_page("vera")
    rid = practice_started(page, "fours-up")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    verify = page.locator("#verify.ok")
    expect(verify).to_have_text(SAID)
    expect(verify).to_have_attribute("title", "Computed by the browser's own sha256 (crypto.subtle)")
    assert "crypto.subtle" not in page.locator("body").inner_text()
    page.goto(page.url.split("#")[0] + f"#replay={rid}")
    expect(page.locator("#replay-verify .verify.ok").first).to_have_text(SAID)
    assert "crypto.subtle" not in page.locator("body").inner_text()
