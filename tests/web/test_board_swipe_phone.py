"""On a phone a finger swipes a tall board up and down from anywhere but a face-up card: the board
took every touch (touch-action: none, so that a finger drags cards without panning the page), and a
board taller than the screen (Double Aces and Kings' columns) scrolled only from its 2 px margins.
A face-up card still takes the finger: a swipe that starts on one moves no page.

The touches are Chromium's own (DevTools' Input.dispatchTouchEvent), which honour touch-action as
a phone's finger does."""

from __future__ import annotations

import pytest

from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(120)

# The first point of the board, from its bottom on screen, whose topmost element is (not) a face-up card.
POINT = """(faceUp) => {
  const b = document.querySelector('#board').getBoundingClientRect();
  for (let y = Math.min(innerHeight - 80, b.bottom - 5); y > b.top + 5; y -= 7)
    for (let x = b.left + 3; x < b.right - 3; x += 5) {
      const e = document.elementFromPoint(x, y);
      if (!e || !e.closest('#board')) continue;
      const card = e.closest('.card');
      if (faceUp ? card && !card.classList.contains('back') : !card || card.classList.contains('back')) return { x, y };
    }
  return null;
}"""


def swipe_up(page, at: dict) -> int:
    """A finger put down at `at`, moved up 150 px, lifted: how far the page scrolled."""
    cdp = page.context.new_cdp_session(page)
    before = page.evaluate("scrollY")
    x, y = at["x"], at["y"]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 15 * k}]}
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    # the page's scroll is read after a frame: the swipe's scroll has been applied by then
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return int(page.evaluate("scrollY") - before)


def test_a_tall_board_swipes_from_its_gaps_and_a_card_still_takes_the_finger(new_page):
    page = new_page("swiper", width=390, height=600, has_touch=True, is_mobile=True)
    practice_started(page, "double-aces-and-kings")
    assert page.evaluate("document.querySelector('#board').getBoundingClientRect().bottom") > 600
    on_card = page.evaluate(POINT, True)
    assert on_card, "no face-up card on screen"
    assert swipe_up(page, on_card) == 0  # the card took the finger (a drag), the page stayed
    page.keyboard.press("Escape")  # whatever the drag selected
    off_card = page.evaluate(POINT, False)
    assert off_card, "no gap in the board on screen"
    assert swipe_up(page, off_card) > 50
