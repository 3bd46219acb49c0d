"""A new player's first ten minutes in the browser, from a newcomer's walk through README.md.

"Finish my game" on a daily attempt says it ends the day's one ranked attempt (it asked
the casual race's question, and a click ended the attempt for good). A tile's "Create race…"
and "Race a bot…" bring their form into view on a 1280x720 screen (it opened under the fold,
and the click seemed to do nothing). The lobby's Join box says a text that is no race id is
not one (it opened the race page, which said "no such race (it may have expired)"). A
result offers "Quick match again" to a player of a quick match only: a spectator, or the
player of a race made by hand, is offered "Quick match".
Screenshots: test-artifacts/web/ten-*.png.
"""

from __future__ import annotations

import re

import pytest
from waiting import wait_until

from .conftest import shot
from .test_browser import create_in_ui, finished_solo_race, race_id, wait_board

pytestmark = pytest.mark.timeout(180)


def finish_question(page) -> str:
    """The question "Finish my game" asks, answered No: the game goes on."""
    asked: list[str] = []

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    page.click("#finish-btn")
    return wait_until(lambda: asked[0] if asked else None, what="the question asked")


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_finishing_a_daily_attempt_says_it_is_the_one_ranked_attempt(new_page):
    page = new_page("dora")
    page.goto(page.url.split("#")[0] + "#daily=fours-up")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    wait_board(page)
    question = finish_question(page)
    assert "one ranked attempt" in question and "daily" in question, question
    assert page.evaluate("window.solrace.app.you.status") == "playing"  # No keeps it going
    shot(page, "ten-daily-finish-asked")


def test_finishing_a_casual_race_asks_the_plain_question(new_page):
    page = new_page("cass")
    create_in_ui(page, "fours-up", 1)
    page.click("#ready-btn")
    wait_board(page)
    question = finish_question(page)
    assert question == "Stop playing and keep the cards you have home?", question


@pytest.mark.parametrize("act", ["create", "bot"])
def test_a_tiles_form_opens_in_view_at_1280x720(new_page, act):
    page = new_page("tilly", width=1280, height=720)
    tile = '.tile[data-game="double-aces-and-kings"]'
    page.click(f'{tile} [data-act="{act}"]')
    submit = page.locator(f'{tile} form:visible button[type="submit"]')
    box = wait_until(submit.bounding_box, what="the form drawn")
    assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    shot(page, f"ten-tile-{act}-form")


@pytest.mark.parametrize(
    "text", ["hello", "r2070f124", "http://127.0.0.1:8765/#replay=r20708f12451f0f6&step=3"]
)
def test_the_join_box_says_a_mistyped_id_is_not_a_race_id(new_page, text):
    page = new_page("jo")
    page.fill('input[name="link"]', text)
    page.press('input[name="link"]', "Enter")
    page.wait_for_selector(".toast.error:has-text('not a race link or id')")
    assert page.evaluate("location.hash") in ("", "#/"), page.url  # still in the lobby
    shot(page, "ten-join-mistyped")


def test_the_join_box_opens_a_race_by_its_link(new_page):
    page = new_page("jo")
    rid = create_in_ui(page, "fours-up", 2)
    other = new_page("jim")
    other.fill('input[name="link"]', f"{other.url.split('#')[0]}#race={rid}")
    other.press('input[name="link"]', "Enter")
    other.wait_for_selector("#lobby-panel .lobby-panel")
    assert f"#race={rid}" in other.url


def test_quick_match_again_is_offered_to_a_quick_matchs_players_only(new_page):
    a, b = new_page("quin"), new_page("quade")
    for page in (a, b):
        page.click('.tile[data-game="fours-up"] [data-act="quick"]')
    rid = race_id(a)
    assert race_id(b) == rid
    for page in (a, b):
        wait_board(page)
        page.once("dialog", lambda d: d.accept())
        page.click("#finish-btn")
    for page in (a, b):
        page.wait_for_selector("#result-panel")
        assert page.locator("#quick-again").inner_text() == "Quick match again"
    visitor = new_page("vic")
    visitor.goto(visitor.url.split("#")[0] + f"#race={rid}")
    visitor.wait_for_selector("#result-panel")
    assert visitor.locator("#quick-again").inner_text() == "Quick match"  # never in it
    shot(visitor, "ten-visitor-result")
    visitor.click('a[data-nav="lobby"]')
    finished_solo_race(visitor)
    assert visitor.locator("#quick-again").inner_text() == "Quick match"  # a race made by hand
