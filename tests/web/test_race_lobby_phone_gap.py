"""A race's lobby on a phone (390x844): no empty band between its panel ("A race of your own", the
start buttons) and the side panel under it. With no board yet, the panel's own margin and the
empty box for the board's extras (the Mark-the-cards box, the legend) added 24 px to the grid's
10 px gap: 34 px of nothing under the start buttons. On a wide screen the side panel stays beside
the stage, at its top. Screenshots: test-artifacts/web/race-lobby-gap-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui
from .test_lobby_practice import practise

pytestmark = pytest.mark.timeout(120)

# The lobby panel's box, the stage's and the side panel's, and the grid's gap between its rows.
BOXES = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  return { panel: box('#lobby-panel .panel'), stage: box('.race-page .stage'), side: box('.race-page .side'),
           gap: parseFloat(getComputedStyle(document.querySelector('.race-page')).rowGap) };
}"""


def lobby_of(page, kind: str) -> None:
    """The race page in its lobby: a practice's ("A race of your own") or a race of two's."""
    if kind == "practice":
        practise(page, "fours-up")
    else:
        create_in_ui(page, "fours-up", 2)
        expect(page.locator("#lobby-panel h2")).to_have_text("Waiting for players")
    expect(page.locator("#ready-btn")).to_be_visible()


@pytest.mark.parametrize("kind", ["practice", "two-seats"])
def test_no_empty_band_under_a_phones_race_lobby(new_page, kind):
    page = new_page(f"gap-{kind[:3]}", width=390, height=844)
    lobby_of(page, kind)
    b = page.evaluate(BOXES)
    # the stage ends with the panel, and the side panel follows it by the grid's gap alone
    assert abs(b["stage"]["bottom"] - b["panel"]["bottom"]) <= 1, b
    assert b["side"]["top"] - b["panel"]["bottom"] <= b["gap"] + 1, b
    shot(page, f"race-lobby-gap-{kind}-390")


def test_a_wide_race_lobby_keeps_its_side_panel_beside_it(new_page):
    page = new_page("gap-wide", width=1280, height=860)
    lobby_of(page, "practice")
    b = page.evaluate(BOXES)
    assert abs(b["side"]["top"] - b["panel"]["top"]) <= 1, b
    assert b["side"]["right"] < b["panel"]["left"], b
    shot(page, "race-lobby-gap-1280")
