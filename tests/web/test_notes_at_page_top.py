"""At the page's top a passing note's going leaves the board where it is. On a phone the notes
nobody asked for (a rival's finish, a refused move) show above the board, and the page scrolls by
what they take or give back so that the board stays still on screen; at the page's top there is
nothing to scroll back when a note goes, and the board jumped up by the note's height (under a
finger about to tap a card). The notes' box now keeps, empty, what the page cannot scroll back, and
gives it up once the player has scrolled it out of sight (nothing they see moves then)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import create_in_ui, race_against

pytestmark = pytest.mark.timeout(180)

# Where the page is seen from (under the header where it sticks: a tablet's width), the board's
# top on screen, the page's scroll, the notes box's bottom on screen and the height it keeps.
SEEN = """() => {
  const header = document.querySelector('header.top');
  const box = document.querySelector('#board-notes');
  return {
    top: getComputedStyle(header).position === 'sticky' ? Math.max(0, header.getBoundingClientRect().bottom) : 0,
    board: document.querySelector('#board-wrap').getBoundingClientRect().top,
    scrollY,
    notesBottom: box.getBoundingClientRect().bottom,
    kept: box.style.minHeight,
  };
}"""


def still(now: dict, then: dict, by: float = 0) -> bool:
    """The board where it was on screen, or moved up by `by` (the page scrolls by whole pixels)."""
    return abs(now["board"] - (then["board"] - by)) <= 1


@pytest.mark.parametrize(("width", "height"), [(390, 844), (800, 700)])
def test_a_notes_going_at_the_page_top_leaves_the_board_still(new_page, make_bot, width, height):
    page = new_page("toptap", width=width, height=height)
    rid = create_in_ui(page, "racing-aces", 2)
    rival = make_bot("Rivalry")
    race_against(page, rival, rid)
    page.evaluate("scrollTo(0, 0)")
    page.wait_for_function("scrollY === 0")
    start = page.evaluate(SEEN)

    rival.call(lambda c: c.finish(rid))  # "Rivalry finished with 0/N cards home", above the board
    note = page.locator("#board-notes .toast", has_text="finished with")
    expect(note).to_be_visible()
    # (the page scrolled the header away for it where it could: the player scrolls back up to it)
    page.evaluate("scrollTo(0, 0)")
    page.wait_for_function("scrollY === 0")
    shown = page.evaluate(SEEN)
    assert shown["board"] > start["board"], (start, shown)  # the note above it

    # It goes: the board stays where it is, though the page cannot scroll up
    expect(page.locator(".toast")).to_have_count(0)
    gone = page.evaluate(SEEN)
    assert still(gone, shown), (shown, gone)

    # The next note takes the room kept: the board stays still as it comes and goes
    page.evaluate("window.solrace.sendMove('t0>t0')")  # refused in every game and deal
    refused = page.locator("#board-notes .toast", has_text="Not allowed")
    expect(refused).to_be_visible()
    again = page.evaluate(SEEN)
    assert again["board"] >= gone["board"] - 1, (gone, again)  # (a longer note may push it down)
    expect(page.locator(".toast")).to_have_count(0)
    assert still(page.evaluate(SEEN), again), again

    # Scrolled down until the box is out of sight: it gives the room up, and the board moves only
    # by the player's scroll
    before = page.evaluate(SEEN)
    down = round(before["notesBottom"] - before["top"]) + 100
    page.evaluate(f"scrollBy(0, {down})")
    page.wait_for_function("!document.querySelector('#board-notes').style.minHeight")
    after = page.evaluate(SEEN)
    assert still(after, before, by=down), (before, after)
    assert after["scrollY"] < before["scrollY"] + down, (before, after)  # the room was given back
