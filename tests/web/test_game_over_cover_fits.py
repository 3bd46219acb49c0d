"""The game-over cover's words (your game over while the race runs: "You stopped with …", the time
left, Back to the lobby) lie over the board, and the board's box grows to hold them: over a
short board (Rouge et Noir at its start on a phone) they ran out of it, over the race's line
under the board ("4:59 · Random bot · you 0/104", its text showing through beside the button)
and the "Mark the cards that can move" box. Screenshots: test-artifacts/web/cover-fits-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, wait_board

pytestmark = pytest.mark.timeout(180)

BOXES = """() => {
  const b = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
  return { msg: b('#cover-msg'), wrap: b('#board-wrap'), board: b('#board'), line: b('#mini-status'), extras: b('#board-extras') };
}"""


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_the_cover_stays_inside_the_boards_box(new_page, make_bot, width, height):
    page = new_page("coverer", width=width, height=height)
    rid = create_in_ui(page, "rouge-et-noir", 2)
    rival = make_bot("still-playing")
    rival.call(lambda c: c.join(rid))
    rival.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")  # the rival plays on: the cover shows
    expect(page.locator("#cover-msg")).to_be_visible()
    boxes = page.evaluate(BOXES)
    assert (
        boxes["wrap"]["top"] - 1 <= boxes["msg"]["top"]
        and boxes["msg"]["bottom"] <= boxes["wrap"]["bottom"] + 1
    ), boxes
    assert boxes["board"]["top"] >= boxes["wrap"]["top"] - 1, boxes  # the board where it was, under the cover
    assert boxes["msg"]["bottom"] <= boxes["extras"]["top"] + 1, boxes
    if page.locator("#mini-status").is_visible():  # a phone's race line, under the board
        assert boxes["msg"]["bottom"] <= boxes["line"]["top"] + 1, boxes
    shot(page, f"cover-fits-{width}", full_page=True)
