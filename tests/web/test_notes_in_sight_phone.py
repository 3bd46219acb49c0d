"""On a phone a passing note nobody asked for is seen where the player looks: at 390x844 the side
panel lies under the board, and a rival's finish or a refused move went to the notes box under
its buttons, below the fold for a player looking at the board from its top. Such notes now show
above the board, brought into sight without moving the board under a finger that is on it (the
page waits for the tap or drag to end), and the notes' coming and going leaves the board where it
is on screen. Screenshots: test-artifacts/web/notes-in-sight-GAME-WIDTH.png."""

from __future__ import annotations

import pytest
from must import must
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, race_against
from .test_hint_note_phone import meet
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)

# Where the page is seen from (under the header where it sticks: a tablet's width), the board's
# top, the side buttons' bottom (their notes box under them), every shown note's box and every
# control's box (what a tap acts on), in the viewport's coordinates.
SEEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility(); };
  const header = document.querySelector('header.top');
  return {
    top: getComputedStyle(header).position === 'sticky' ? Math.max(0, header.getBoundingClientRect().bottom) : 0,
    height: innerHeight,
    board: document.querySelector('#board-wrap').getBoundingClientRect().top,
    sideButtons: document.querySelector('#side-actions').getBoundingClientRect().bottom,
    notes: [...document.querySelectorAll('.toast:not(.gone)')].map((t) => ({ text: t.textContent, box: box(t) })),
    controls: [...document.querySelectorAll("button, a[href], input, select, summary, [role='button'], #board .pile")]
      .filter(shown).map((c) => ({ what: (c.id || c.dataset.pile || c.textContent).slice(0, 40), box: box(c) })),
  };
}"""


def in_sight(page, text: str) -> dict:
    """The note saying `text` lies whole on screen and over no control; what the page showed."""
    seen = page.evaluate(SEEN)
    notes = [n for n in seen["notes"] if text in n["text"]]
    assert len(notes) == 1, f"no note {text!r} shown: {seen}"
    note = notes[0]
    top, bottom = note["box"]["y"], note["box"]["y"] + note["box"]["h"]
    assert seen["top"] - 1 <= top and bottom <= seen["height"] + 1, seen  # to a pixel
    for other in seen["notes"]:
        if other["box"]["y"] + other["box"]["h"] <= seen["top"] + 1:
            continue  # an older note pushed up under a header that sticks: drawn under it
        for control in seen["controls"]:
            assert not meet(other["box"], control["box"]), (other, control)
    return seen


def still(now: dict, then: dict) -> bool:
    """The board where it was on screen (the page scrolls by whole pixels, the layout by fractions)."""
    return abs(now["board"] - then["board"]) <= 1


# Racing Aces' groups wrap on a phone (the tallest board at the start); Double Aces and Kings'
# columns grow long. A tablet's width has the phone's layout under a header that sticks.
CASES = [(390, 844, "racing-aces"), (390, 844, "double-aces-and-kings"), (800, 700, "double-aces-and-kings")]


@pytest.mark.parametrize(("width", "height", "game"), CASES)
def test_a_note_nobody_asked_for_is_seen_from_the_boards_top(new_page, make_bot, width, height, game):
    page = new_page("thumb", width=width, height=height)
    rid = create_in_ui(page, game, 2)
    rival = make_bot("Rivalry")
    race_against(page, rival, rid)
    top = page.evaluate(SEEN)["top"]
    page.evaluate(f"scrollBy(0, document.querySelector('#board-wrap').getBoundingClientRect().top - {top})")
    start = page.evaluate(SEEN)
    assert abs(start["board"] - top) <= 1 and start["sideButtons"] > height, start  # its notes under the fold

    # A finger on the board when the rival finishes: nothing moves under it until it lifts.
    pile = page.locator("#board .pile[data-pile^='t']").first
    box = pile.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 20))
    page.mouse.down()
    rival.call(lambda c: c.finish(rid))  # "Rivalry finished with 0/N cards home"
    note = page.locator(".toast", has_text="finished with")
    expect(note).to_have_count(1)
    held = page.evaluate(SEEN)
    assert still(held, start), (start, held)
    page.mouse.up()
    page.keyboard.press("Escape")  # the tap may have selected a card: a tap-then-tap move ended
    # (or gone: in_sight says so)
    page.wait_for_function(
        "(() => { const t = [...document.querySelectorAll('.toast')].find((n) => n.textContent.includes('finished with'));"
        f" return !t || t.getBoundingClientRect().top >= {top - 1}; }})()"
    )
    seen = in_sight(page, "finished with")
    # brought into sight by the note's own height (and its gap), no more: the board's top stays seen
    assert 0 < seen["board"] - start["board"] <= must(note.bounding_box())["height"] + 10, (start, seen)

    # A refused move while the first note shows: it comes above the board too, in sight, the board
    # moved by no more than it
    page.evaluate("window.solrace.sendMove('t0>t0')")  # refused in every game and deal
    refused = page.locator(".toast", has_text="Not allowed")
    expect(refused).to_be_visible()
    again = in_sight(page, "Not allowed")
    assert -1 <= again["board"] - seen["board"] <= must(refused.bounding_box())["height"] + 10, (seen, again)
    seen = again
    shot(page, f"notes-in-sight-{game}-{width}")
    # and their going leaves it there too (near the page's top their box keeps what the page
    # cannot scroll back: test_notes_at_page_top.py)
    expect(page.locator(".toast")).to_have_count(0)
    end = page.evaluate(SEEN)
    assert still(end, seen), (seen, end)


def test_an_answer_goes_under_the_button_pressed_when_nothing_takes_the_focus(new_page):
    """A press's answer ("Link copied", a refused finish) goes to the notes box nearest the button
    pressed: under the side buttons, not above the board. Safari focuses no button it clicks or
    taps (the page's focus stays on the body): the button the pointer pressed says where."""
    page = new_page("tapper", width=390, height=844)
    practice_started(page, "racing-aces")
    box = page.evaluate(
        """async () => {
          const { answer } = await import("./js/dom.js");
          const button = [...document.querySelectorAll('#side-actions .btn')].pop();
          for (const type of ["pointerdown", "pointerup"]) button.dispatchEvent(new PointerEvent(type, { bubbles: true, pointerId: 7 }));
          document.activeElement.blur();
          return answer("Answered").parentElement.id;
        }"""
    )
    assert box == "race-notes"
