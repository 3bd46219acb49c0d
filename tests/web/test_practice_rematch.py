"""A practice's Rematch (a race of one seat) deals again and waits for the player, as the
practice's first race did: its lobby panel, "I'm ready" with the focus (Enter starts it), and
the countdown from its start. It started at once, on a countdown already running when the new
page came, with no way back, while a race with rivals waits in its lobby for everybody.
(A bot race's rematch still starts at once: its first race did too, test_bots_rematch.py.)
Screenshots: test-artifacts/web/practice-rematch-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import race_id, wait_board
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_a_practice_rematch_waits_for_ready(new_page, width, height):
    page = new_page("petra", width=width, height=height)
    rid = practice_started(page, "fours-up")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#rematch-btn")).to_be_visible()
    page.click("#rematch-btn")
    page.wait_for_url(re.compile(r"#race=(?!" + rid + r")"))
    new_rid = race_id(page)
    # the new deal's lobby, as the first race's: nothing runs yet
    expect(page.locator("#lobby-panel h2")).to_have_text("A race of your own")
    ready = page.locator("#ready-btn")
    expect(ready).to_have_text("I'm ready")
    expect(ready).to_be_focused()
    race = page.evaluate(
        "() => { const r = window.solrace.app.race; return { id: r.race, status: r.status, seats: r.seats, game: r.game }; }"
    )
    assert race == {"id": new_rid, "status": "lobby", "seats": 1, "game": "fours-up"}
    expect(page.locator("#countdown")).to_be_hidden()
    shot(page, f"practice-rematch-{width}")
    # Enter on the focused button: the countdown, then the new board
    page.keyboard.press("Enter")
    expect(page.locator("#countdown")).to_be_visible()
    wait_board(page)
    expect(page.locator("#hint-btn")).to_be_visible()


def test_a_practice_result_offers_one_new_deal(new_page):
    """A practice's result named its new deal "Rematch" (nobody to meet again) and offered it
    twice: "New race, same settings" made the same race of one seat. One button now, "New deal"."""
    page = new_page("nadia")
    practice_started(page, "racing-aces")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    actions = page.locator("#result-panel .result-actions")
    expect(actions.locator("#rematch-btn")).to_have_text("New deal")
    expect(actions.get_by_role("button", name="New race, same settings")).to_have_count(0)
    expect(actions.get_by_role("button", name="Rematch")).to_have_count(0)
    shot(page, "practice-result-actions")
