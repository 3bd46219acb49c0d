"""Practice alone in the browser: each game's lobby tile has a "Practice" button, the terminal's
"Practice alone" (client/tui/menu.py). It creates what the tile's "Create race…" form would with
1 seat and private, on the server's own clock, never rated: the race page of a race of one's
own, where the server gives hints. (A new player found no way to practise but that form.)
Screenshots: test-artifacts/web/practice-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .accounts_pages import claim
from .conftest import shot
from .test_browser import race_id, wait_board

pytestmark = pytest.mark.timeout(180)

SERVER_CLOCK_S = 600  # the server's TIME_LIMIT_S (the web_server fixture leaves the default)


def practise(page, game: str) -> str:
    """Click the tile's Practice: the race page of a race of one's own opens; its id."""
    page.click(f'.tile[data-game="{game}"] [data-act="practice"]')
    rid = race_id(page)
    expect(page.locator("#lobby-panel h2")).to_have_text("A race of your own")
    return rid


def practice_started(page, game: str) -> str:
    """`practise`, then "I'm ready": its board once the countdown is over; the race's id."""
    rid = practise(page, game)
    page.click("#ready-btn")
    wait_board(page)
    return rid


def a_practice_race(game: str) -> dict:
    """What the_race says of a practice race of `game`: one seat, private, casual, the server's clock."""
    return {"seats": 1, "private": True, "rated": False, "clock": SERVER_CLOCK_S, "game": game}


def the_race(page) -> dict:
    return page.evaluate(
        """() => { const r = window.solrace.app.race;
                   return { seats: r.seats, private: r.private, rated: !!r.rated, clock: r.time_limit_s, game: r.game }; }"""
    )


def play_with_a_hint(page) -> None:
    """Ready, the board comes, and the Hint button with it; a hint marks a move on the board."""
    page.click("#ready-btn")
    wait_board(page)
    page.click("#hint-btn")
    expect(page.locator("#board .hint-from").first).to_be_visible()


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_practice_on_a_tile_starts_a_private_race_of_one(new_page, width, height):
    page = new_page("prue", width=width, height=height)
    expect(page.locator('.tile[data-game="rouge-et-noir"] [data-act="practice"]')).to_have_text("Practice")
    # Beside Quick match, on the tile's first row of buttons. Scrolled and measured in one step:
    # the lobby redraws its tiles as the race list changes, which detaches a held element.
    quick_y, practice_y = page.evaluate(
        """() => { const t = document.querySelector('.tile[data-game="rouge-et-noir"]');
                   t.scrollIntoView({ block: "nearest" });
                   const y = (act) => t.querySelector(`[data-act="${act}"]`).getBoundingClientRect().y;
                   return [y("quick"), y("practice")]; }"""
    )
    assert abs(quick_y - practice_y) < 2, (quick_y, practice_y)
    shot(page, f"practice-tile-{width}")
    practise(page, "rouge-et-noir")
    assert the_race(page) == a_practice_race("rouge-et-noir")
    shot(page, f"practice-race-page-{width}")
    play_with_a_hint(page)
    shot(page, f"practice-hint-{width}")


def test_practice_is_never_rated(new_page):
    """With the lobby's Rated box ticked, Practice still makes a casual race of one (a rated race has two seats at least)."""
    page = new_page("rita")
    claim(page, "rita", "correct horse battery")
    page.goto(page.url.split("#")[0] + "#/")
    page.check("#rated-toggle")
    practise(page, "fours-up")
    assert the_race(page) == a_practice_race("fours-up")
    play_with_a_hint(page)
