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
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"


def base(page) -> str:
    return page.url.split("#")[0]


def claim(page, name: str, password: str) -> str:
    page.goto(base(page) + "#account")
    page.fill("#claim-form input[name=account]", name)
    page.fill("#claim-form input[name=password]", password)
    page.click("#claim-form button[type=submit]")
    page.wait_for_selector("#logout-btn")
    page.wait_for_selector(f'#profile h1:has-text("{name}")')
    return page.evaluate("window.solrace.app.me.player")


def play_one_rated_race(host, guest, guest_id: str) -> str:
    host.goto(base(host) + "#/")
    host.check("#rated-toggle")
    tile = f'.tile[data-game="{GAME}"]'
    host.click(f'{tile} [data-act="create"]')
    host.click(f'{tile} button[type="submit"]')
    host.wait_for_url(re.compile(r"#race="))
    rid = re.search(r"#race=([\w-]+)", host.url).group(1)
    host.wait_for_selector("#race-rated")
    link = host.locator("#share-link").input_value()
    guest.goto(link)
    guest.wait_for_selector("#ready-btn")
    guest.click("#ready-btn")
    host.wait_for_selector(f'#players li[data-player="{guest_id}"] .pill.p-ready')
    host.click("#ready-btn")
    for page in (host, guest):
        page.wait_for_selector("#finish-btn", timeout=20000)
    for page in (host, guest):
        page.once("dialog", lambda d: d.accept())
        page.click("#finish-btn")
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
    shown = int(re.search(r"You: (\d+)\?", standing.inner_text()).group(1))
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
    tile = f'.tile[data-game="{GAME}"]'
    page.click(f'{tile} [data-act="create"]')
    page.click(f'{tile} button[type="submit"]')
    page.wait_for_url(re.compile(r"#race="))
    rid = re.search(r"#race=([\w-]+)", page.url).group(1)
    page.wait_for_selector("#ready-btn")
    assert page.evaluate("window.solrace.app.race.game") == GAME

    page.goto(base(page) + "#/")
    button = page.locator(f'#my-races a[data-race="{rid}"]')
    expected = page.locator(f"{tile} .tile-head h2").inner_text()
    expect(button).to_contain_text(expected)
    expect(button).to_contain_text("lobby")
    expect(button).to_have_attribute("title", re.compile(re.escape(rid)))
    assert rid[:10] not in button.inner_text()
    shot(page, "lobby-your-races")

    # After a reload the welcome lists the race by its id only: the race list names it again.
    page.reload()
    expect(page.locator(f'#my-races a[data-race="{rid}"]')).to_contain_text(expected)
    expect(page.locator(f'#my-races a[data-race="{rid}"]')).to_contain_text("lobby")
