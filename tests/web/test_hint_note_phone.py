"""A hint's words cover no button: on a phone (390x844) the hint toast, fixed at the bottom of
the screen, lay over the side buttons (Hint, Finish my game, Lobby: a practice's) the player
had just scrolled to. It now shows under them, in the side panel's flow: its box meets none of
theirs, and each button is still what a tap at its centre reaches while the words show.
Screenshots: test-artifacts/web/hint-note-GAME-WIDTH.png. (The page's other notes: test_notes_cover_nothing.py.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)

GAMES = ["rouge-et-noir", "racing-aces", "double-aces-and-kings", "fours-up"]

# Every side button's box, the hint's box, and whether a tap at each button's centre reaches it.
BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const note = [...document.querySelectorAll('.toast')].find((t) => t.textContent.startsWith('Hint'));
  const buttons = [...document.querySelectorAll('#side-actions button, #side-actions a.btn')].map((b) => {
    const r = b.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return { text: b.textContent, box: box(b), reached: !!hit && b.contains(hit) };
  });
  return { note: note ? box(note) : null, buttons, viewport: { w: innerWidth, h: innerHeight } };
}"""


def meet(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


# On a phone each game's board puts the side buttons elsewhere (Rouge et Noir's first board left
# them above the old toast); on a wide screen the side panel is beside the board.
CASES = [(390, 844, game) for game in GAMES] + [(1280, 720, "rouge-et-noir")]


@pytest.mark.parametrize(("width", "height", "game"), CASES)
def test_the_hint_covers_no_side_button(new_page, width, height, game):
    page = new_page("tapper", width=width, height=height)
    practice_started(page, game)
    # the Hint button at the screen's bottom edge, as a thumb scrolls to it
    page.evaluate(
        "() => scrollBy(0, document.querySelector('#hint-btn').getBoundingClientRect().bottom - innerHeight)"
    )
    page.click("#hint-btn")
    note = page.locator(".toast", has_text="Hint")
    expect(note).to_be_visible()
    seen = page.evaluate(BOXES)
    # every side button of a practice (no "Copy race link": nobody to share it with)
    assert seen["note"] and [b["text"] for b in seen["buttons"]] == ["Hint", "Finish my game", "Lobby"], seen
    # in sight, to a pixel (scrolled into view at a fractional offset)
    top, bottom = seen["note"]["y"], seen["note"]["y"] + seen["note"]["h"]
    assert 0 <= top and bottom <= seen["viewport"]["h"] + 1, seen
    for button in seen["buttons"]:
        assert not meet(seen["note"], button["box"]), (button, seen["note"])
        assert button["reached"], button
    shot(page, f"hint-note-{game}-{width}")
    # still pressable while the words show: a second hint comes
    page.evaluate("window.solrace.app.hint = undefined")
    page.click("#hint-btn")
    page.wait_for_function("window.solrace.app.hint !== undefined", timeout=60_000)
    expect(note).to_have_count(1)  # the new words replace the last
    side = page.locator("#side-actions")
    for button in side.locator("button, a.btn").all():
        button.click(trial=True)  # what a click checks: visible, still, and the one a click reaches
