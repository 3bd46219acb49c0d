"""On a phone the race's line (time left, your cards home, the leading rival's) stays in sight while
you play: at 390x844 it lay above the board, off screen for a player scrolled down the board
(Double Aces and Kings' reserves, Racing Aces' wrapped groups), who saw neither the clock nor the
rivals. It now lies under the board, stuck to the screen's bottom while you play: scrolled to
the board's bottom it lies under the board, over no pile, and where the board is taller than the
window (a phone's browser bars take a fifth of it) the page scrolls every card out from under it.
Screen readers read it where it is and are not told each second of it.
Screenshots: test-artifacts/web/race-line-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, pick_move, race_against, wait_board, you
from .test_hint_note_phone import meet

pytestmark = pytest.mark.timeout(180)

GAME = "double-aces-and-kings"  # the tallest board at the start: four reserves of 13 cards

# The line's box, what it shows and reads, and every pile's box (what a tap acts on), in the
# viewport's coordinates.
SEEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const line = document.querySelector('#mini-status');
  return {
    height: innerHeight,
    line: box(line),
    drawn: line.checkVisibility(),
    position: getComputedStyle(line).position,
    clock: document.querySelector('#clock-mini').textContent,
    board: box(document.querySelector('#board-wrap')),
    piles: [...document.querySelectorAll('#board .pile')].map((p) => ({ pile: p.dataset.pile, box: box(p) })),
  };
}"""

# A region a screen reader reads out whenever it changes, around the line or in it: a clock there
# would be said every second.
LIVE = "[aria-live]:not([aria-live='off']), [role='status'], [role='alert'], [role='log'], [role='marquee']"


def in_sight(page) -> dict:
    """The line drawn whole on screen, over no pile; what the page showed."""
    seen = page.evaluate(SEEN)
    line = seen["line"]
    assert seen["drawn"] and line["h"] > 0, seen
    assert -1 <= line["y"] and line["y"] + line["h"] <= seen["height"] + 1, seen  # to a pixel
    inside = {**line, "y": line["y"] + 1, "h": line["h"] - 1}  # (boxes lie at fractions of a pixel)
    under = [p["pile"] for p in seen["piles"] if meet(p["box"], inside)]
    assert not under, (under, seen)
    return seen


def test_the_race_line_stays_in_sight_down_a_tall_board(new_page, make_bot):
    page = new_page("scroller", width=390, height=844)
    rid = create_in_ui(page, GAME, 2)
    rival = make_bot("Leader")
    race_against(page, rival, rid)
    total = page.evaluate("window.solrace.app.race.total")

    # Scrolled down the board, its top off screen and its bottom in sight: the line still shows.
    page.evaluate(
        "(() => { const b = document.querySelector('#board-wrap').getBoundingClientRect();"
        " scrollBy(0, b.top + b.height / 2); })()"
    )
    seen = in_sight(page)
    assert seen["board"]["y"] < 0 < seen["board"]["y"] + seen["board"]["h"] <= seen["line"]["y"], seen
    shot(page, "race-line-scrolled-844")

    # Its clock ticks.
    page.wait_for_function(f"document.querySelector('#clock-mini').textContent !== {seen['clock']!r}")
    # Its cards home follow your moves (sent as the board sends them: home first, else draw),
    # until one goes home; the line stays where it is seen.
    line_home = page.locator("#mini-home")
    expect(line_home).to_have_text(f"you 0/{total}")
    for _ in range(300):
        state = you(page)
        if state["home"] > 0:
            break
        move = pick_move(state["legal"])
        assert move, state
        page.evaluate(f"window.solrace.sendMove({move!r})")
        page.wait_for_function(f"window.solrace.app.you.n > {state['n']}")
    home = you(page)["home"]
    assert home > 0, "no card home in 300 moves"
    expect(line_home).to_have_text(f"you {home}/{total}")
    in_sight(page)
    # It names the rival with their cards home.
    rival_line = page.locator(f'#mini-rivals .mini-rival[data-player="{rival.client.player}"]')
    expect(rival_line.locator(".mini-name")).to_have_text("Leader")
    expect(rival_line.locator(".mini-count")).to_have_text(" 0")

    # Read as a sentence where it is, never as it changes.
    assert page.locator("#mini-status").evaluate(
        f"(el) => !el.closest({LIVE!r}) && !el.querySelector({LIVE!r})"
    )
    assert page.locator("#mini-status").evaluate(
        "(el) => el.textContent.startsWith('Time left ' + el.querySelector('#clock-mini').textContent)"
    )
    expect(page.locator("#mini-status")).to_contain_text(f", rival Leader 0, you {home}/{total} cards home")

    # A window shorter than the board (the browser's bars showing): at the page's top the line
    # is stuck to the screen's bottom, over the board's last piles ...
    page.set_viewport_size({"width": 390, "height": 600})
    page.evaluate("scrollTo(0, 0)")
    page.wait_for_function("scrollY === 0")
    seen = page.evaluate(SEEN)
    assert seen["board"]["y"] + seen["board"]["h"] > seen["height"], seen  # (the board is taller)
    line = seen["line"]
    assert seen["drawn"] and abs(line["y"] + line["h"] - seen["height"]) <= 1, seen
    assert any(meet(p["box"], line) for p in seen["piles"]), seen
    shot(page, "race-line-stuck-600")
    # ... which come out from under it when the board's bottom is scrolled into view (as the
    # keyboard's focus is).
    page.evaluate("document.querySelector('#board-wrap').scrollIntoView({ block: 'end' })")
    seen = in_sight(page)
    assert seen["board"]["y"] + seen["board"]["h"] <= seen["line"]["y"] + 1, seen
    shot(page, "race-line-board-bottom-600")

    # Your game over while the rival plays on: the line sticks no more (the cover over the board
    # says the time left, and its buttons are not to lie under the line).
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.locator("#cover-lobby").wait_for()
    page.wait_for_function("getComputedStyle(document.querySelector('#mini-status')).position === 'static'")
    # The rival stops: the line says they are done, under the race's result.
    rival.call(lambda c: c.finish(rid))
    expect(rival_line.locator(".mini-count")).to_have_text(" 0 done")
    page.wait_for_selector("#result-panel")
    assert page.evaluate("getComputedStyle(document.querySelector('#mini-status')).position") == "static"
    # read out as the race over ("Race done"), not "Time left done"
    expect(page.locator("#mini-status")).to_contain_text("Race done")

    # A wide screen has no such line: the side panel beside the board shows the clock.
    page.set_viewport_size({"width": 1280, "height": 860})
    expect(page.locator("#mini-status")).to_be_hidden()


def test_the_race_line_names_the_leading_rival_of_several(new_page, make_bot):
    """One line whatever the seats: the rival with the most cards home, and how many others (the
    side panel under the board lists them all). Every rival on it wrapped it to more lines."""
    page = new_page("counted", width=390, height=844)
    rid = create_in_ui(page, "racing-aces", 3)
    idle, leader = make_bot("Idle"), make_bot("Ahead")
    for rival in (idle, leader):
        rival.call(lambda c: c.join(rid))
        rival.call(lambda c: c.ready(rid))
        page.wait_for_selector(f'#players li[data-player="{rival.client.player}"] .pill.p-ready')
    page.click("#ready-btn")
    wait_board(page)
    # the first rival seated, who would be named among equals, never moves; the other plays
    # until a card of theirs is home
    seats = page.evaluate("window.solrace.app.race.players.map((p) => p.player)")
    assert seats.index(idle.client.player) < seats.index(leader.client.player), seats
    leader.play(rid, delay=0.05)
    page.wait_for_function(
        f"window.solrace.app.race.players.find((p) => p.player === {leader.client.player!r}).home > 0",
        timeout=90000,
    )
    leader.stop_playing()
    named = page.locator("#mini-rivals .mini-rival")
    expect(named).to_have_count(1)
    expect(named).to_have_attribute("data-player", leader.client.player)
    # (a move of theirs may still be on its way: the count the page has)
    page.wait_for_function(
        "document.querySelector('#mini-rivals .mini-count').textContent === ' ' + "
        f"window.solrace.app.race.players.find((p) => p.player === {leader.client.player!r}).home"
    )
    expect(page.locator("#mini-rivals .mini-more [aria-hidden]")).to_have_text("· 1 more")
    expect(page.locator("#mini-status")).to_contain_text(", leading rival Ahead")  # read out
    expect(page.locator("#mini-rivals .mini-more")).to_contain_text(", and 1 more rival")
    assert abs(page.locator("#mini-status").evaluate("(el) => el.getBoundingClientRect().height") - 40) <= 1
    shot(page, "race-line-three-seats")
