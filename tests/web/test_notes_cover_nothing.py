"""The race page's passing notes cover nothing a player taps: on a phone (390x844) a rival's
finish, "Link copied" or a refused move floated at the bottom of the screen, over the side
buttons (Finish my game, Copy race link, Lobby) the player had scrolled to, or over the board's
cards. They now show under those buttons, in the side panel's flow, as a hint's words do: no note's
box meets a button, link, field or pile, and a tap at each side button's centre reaches it while
they show; "Link copied" is scrolled into sight, as a hint's words are. Screenshots: test-artifacts/web/notes-GAME-WIDTH.png (and -whole, the full page)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, race_against
from .test_hint_note_phone import meet

pytestmark = pytest.mark.timeout(180)

# Every note's box, every control's box (what a tap or click acts on), and whether a tap at each
# side button's centre reaches it (those on screen).
SEEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  // (a link inside a closed <details> keeps a box: checkVisibility tells it is not drawn)
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility(); };
  const notes = [...document.querySelectorAll('.toast:not(.gone)')].map((t) => ({ text: t.textContent, box: box(t) }));
  const controls = [...document.querySelectorAll(
    "button, a[href], input, select, textarea, summary, label, [role='button'], #board .pile"
  )].filter(shown).map((c) => ({ what: (c.id || c.dataset.pile || c.textContent).slice(0, 40), box: box(c) }));
  const buttons = [...document.querySelectorAll('#side-actions button, #side-actions a.btn')].map((b) => {
    const r = b.getBoundingClientRect();
    const onScreen = r.top >= 0 && r.bottom <= innerHeight;
    const hit = onScreen ? document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) : null;
    return { text: b.textContent, onScreen, reached: !!hit && b.contains(hit) };
  });
  return { notes, controls, buttons };
}"""


def covers_nothing(page) -> None:
    """No note showing meets a control, and each side button on screen is what a tap at its
    centre reaches."""
    seen = page.evaluate(SEEN)
    assert seen["notes"], "no note to check"
    for note in seen["notes"]:
        for control in seen["controls"]:
            assert not meet(note["box"], control["box"]), (note, control)
    assert [b for b in seen["buttons"] if b["onScreen"]], seen["buttons"]
    for button in seen["buttons"]:
        assert button["reached"] or not button["onScreen"], button
    for button in page.locator("#side-actions").locator("button, a.btn").all():
        button.click(trial=True)  # visible, still, and the one a click reaches


# Racing Aces' board is the tallest on a phone (its groups wrap): the buttons lie further down.
CASES = [(390, 844, "rouge-et-noir"), (390, 844, "racing-aces"), (1280, 720, "rouge-et-noir")]


@pytest.mark.parametrize(("width", "height", "game"), CASES)
def test_no_note_covers_a_control(new_page, make_bot, width, height, game):
    page = new_page("thumb", width=width, height=height, permissions=["clipboard-read", "clipboard-write"])
    rid = create_in_ui(page, game, 2)
    rival = make_bot("Rivalry")
    race_against(page, rival, rid)
    # the side buttons at the screen's bottom edge, as a thumb scrolls to them
    page.evaluate(
        "() => { const b = [...document.querySelectorAll('#side-actions .btn')].pop();"
        " scrollBy(0, b.getBoundingClientRect().bottom - innerHeight); }"
    )
    # each note as it comes (with the ones before it, while they last: the box keeps the newest two)
    rival.call(lambda c: c.finish(rid))  # "Rivalry finished with 0/104 cards home"
    expect(page.locator(".toast", has_text="finished with")).to_be_visible()
    covers_nothing(page)
    # never legal in any game or deal (t0>f4 is, in some Racing Aces deals): refused, as from a stale board
    page.evaluate("window.solrace.sendMove('t0>t0')")
    expect(page.locator(".toast", has_text="Not allowed")).to_be_visible()
    covers_nothing(page)
    page.click("#side-actions button:has-text('Copy race link')")
    copied = page.locator(".toast", has_text="Link copied")
    expect(copied).to_have_count(1)
    # the answer to the button just pressed is in sight (scrolled to it, to a pixel), the rest stay
    # where the player has them
    box = copied.bounding_box()
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= height + 1, box
    covers_nothing(page)
    shot(page, f"notes-{game}-{width}")
    shot(page, f"notes-{game}-{width}-whole", full_page=True)
