"""A returning player's standing in headless Chromium against a real `solrace serve`.

A claimed account with one rated race (against another account, in a second
browser context) is still provisional, so it is not on the game's rating
board: the board page tells it where it stands all the same (its rating, that
it is provisional, how many rated races are left) and explains the "?"; its
profile lists the game it played first, the others marked unplayed. The
lobby's "Your races" buttons name each race's game and status.
Screenshots: test-artifacts/web/.
"""

from __future__ import annotations

import re

import pytest
from must import must
from playwright.sync_api import expect

from .accounts_pages import base, claim, create_from_lobby, create_rated_race, race_it_by_its_link
from .conftest import shot

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"


def play_one_rated_race(host, guest, guest_id: str) -> str:
    host.goto(base(host) + "#/")
    host.check("#rated-toggle")
    rid, link = create_rated_race(host, GAME)
    race_it_by_its_link(host, guest, guest_id, link)
    for page in (host, guest):
        page.wait_for_selector("#result-panel #rating-change", timeout=20000)
    return rid


def test_provisional_player_sees_standing_and_profile_order(new_page):
    carol = new_page("carol")
    claim(carol, "carol", "carol's secret")
    dave = new_page("dave")
    dave_id = claim(dave, "dave", "dave's secret")
    play_one_rated_race(carol, dave, dave_id)

    # The board has nobody established, but carol sees where she stands.
    carol.goto(base(carol) + f"#ratings={GAME}")
    board = carol.locator("#rating-board")
    expect(board).to_contain_text("0 rated players")
    standing = carol.locator("#my-standing")
    expect(standing).to_contain_text("provisional")
    expect(standing).to_contain_text("9 more rated races")
    expect(standing).to_contain_text(re.compile(r"You: \d+\?"))
    # her displayed rating, the same as her profile's card
    shown = int(must(re.search(r"You: (\d+)\?", standing.inner_text())).group(1))
    # the "?" is explained, on the page and in a tooltip on her rating
    expect(carol.locator("#rating-legend")).to_contain_text("provisional")
    expect(standing.locator(".rating-value")).to_have_attribute("title", re.compile("provisional"))
    shot(carol, "ratings-board-provisional-standing")

    # The profile lists the game she played first; the others are marked as unplayed.
    carol.goto(base(carol) + "#account")
    cards = carol.locator("#profile .rating-card")
    expect(cards.first).to_have_attribute("data-game", GAME)
    expect(cards.first).to_have_attribute("data-played", "yes")
    expect(cards.first.locator(".rating-value")).to_have_text(str(shown))
    expect(cards.first).to_contain_text("provisional")
    n = cards.count()
    assert n >= 2
    for i in range(1, n):
        expect(cards.nth(i)).to_have_attribute("data-played", "no")
        expect(cards.nth(i)).to_contain_text("Not played rated yet")
    expect(carol.locator("#profile #rating-legend")).to_be_visible()
    shot(carol, "ratings-profile-played-first", full_page=True)


def test_lobby_race_buttons_name_the_game(new_page):
    page = new_page("erin")
    page.goto(base(page) + "#/")
    rid = create_from_lobby(page, GAME)
    page.wait_for_selector("#ready-btn")
    assert page.evaluate("window.solrace.app.race.game") == GAME

    page.goto(base(page) + "#/")
    button = page.locator(f'#my-races a[data-race="{rid}"]')
    expected = page.locator(f'.tile[data-game="{GAME}"] .tile-head h2').inner_text()
    expect(button).to_contain_text(expected)
    expect(button).to_contain_text("not started")
    expect(button).to_have_attribute("title", re.compile(re.escape(rid)))
    assert rid[:10] not in button.inner_text()
    shot(page, "lobby-your-races")

    # After a reload the welcome lists the race by its id only: the race list names it again.
    page.reload()
    expect(page.locator(f'#my-races a[data-race="{rid}"]')).to_contain_text(expected)
    expect(page.locator(f'#my-races a[data-race="{rid}"]')).to_contain_text("not started")
