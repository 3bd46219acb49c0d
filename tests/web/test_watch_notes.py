"""The watch page's passing notes cover nothing: a player's finish floated at the bottom of the
screen, over the boards' lower cards on a phone (390x844) and over a board on a wide screen. They
now show in the page's flow, as the race page's do: under the side buttons, and on a phone above
the boards. Screenshots: test-artifacts/web/watch-notes-WIDTH.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_hint_note_phone import meet

pytestmark = pytest.mark.timeout(180)

# Every note's box, every board's and every control's box (what a tap or click acts on).
SEEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility(); };
  const named = (e) => ({ what: (e.id || e.dataset.player || e.textContent).slice(0, 40), box: box(e) });
  return {
    notes: [...document.querySelectorAll('.toast:not(.gone)')].map((t) => ({ text: t.textContent, box: box(t) })),
    covered: [...document.querySelectorAll("button, a[href], input, select, summary, [role='button'], .spec-board")]
      .filter(shown).map(named),
  };
}"""


def a_race_of(a, b) -> str:
    """Two `make_bot` clients seated and ready in a new Rouge et Noir race: its id."""
    rid = a.call(lambda c: c.create("rouge-et-noir", seats=2, time_limit_s=300)).race
    b.call(lambda c: c.join(rid))
    a.call(lambda c: c.ready(rid))
    b.call(lambda c: c.ready(rid))
    return rid


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 720)])
def test_a_watch_note_covers_no_board_or_button(new_page, make_bot, width, height):
    a, b = make_bot("alice-bot"), make_bot("bob-bot")
    rid = a_race_of(a, b)
    page = new_page("viewer", width=width, height=height)
    page.evaluate(f"location.hash = '#watch={rid}'")
    page.wait_for_function("document.querySelectorAll('.spec-board .pile').length > 0")
    page.wait_for_function("document.querySelectorAll('.spec-board').length === 2")
    a.call(lambda c: c.finish(rid))  # "alice-bot finished with 0/104 cards home"; bob plays on
    note = page.locator(".toast", has_text="finished with")
    expect(note).to_be_visible()
    seen = page.evaluate(SEEN)
    for shown in seen["notes"]:
        box = shown["box"]
        assert -1 <= box["y"] and box["y"] + box["h"] <= height + 1, seen  # in sight, to a pixel
        for other in seen["covered"]:
            assert not meet(box, other["box"]), (shown, other)
    shot(page, f"watch-notes-{width}")
