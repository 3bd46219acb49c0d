"""A player's status pill in the race page's players list stays on the line of their name: at
1280 px (a side panel of 250 px) "finished" went to a line of its own under "walker1280 (you)",
and on a phone (390x844) under each name of a race of two, whose cards shared a row. The name
still shows whole (it wraps, between words, where the pill leaves too little room).
Screenshots: test-artifacts/web/status-line-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, race_against
from .test_lobby_practice import practise

pytestmark = pytest.mark.timeout(180)

NAME = "walker1280"  # ten characters, as long as many a name: at 1280 px it left "finished" no room

# Per card of the players list: its name, the box of the name's first line of text (its first
# character's), the status pill's box, and whether the name is cut.
CARDS = """() => [...document.querySelectorAll('#players li')].map((li) => {
  const name = li.querySelector('.pname');
  const first = document.createRange();
  first.setStart(name.firstChild, 0);
  first.setEnd(name.firstChild, 1);
  const line = first.getBoundingClientRect();
  const pill = li.querySelector('.pill.p-' + li.className.match(/\\bst-(\\w+)/)[1]).getBoundingClientRect();
  return { name: name.firstChild.data, line: { top: line.top, bottom: line.bottom },
           pill: { top: pill.top, bottom: pill.bottom, text: li.querySelector('.pill.p-' + li.className.match(/\\bst-(\\w+)/)[1]).textContent },
           cut: name.scrollWidth > name.clientWidth };
})"""


def on_its_line(page, count: int) -> list[dict]:
    """Every card's status pill beside the first line of its name, and the name whole."""
    expect(page.locator("#players li .pill.p-finished")).to_have_count(count)
    cards = page.evaluate(CARDS)
    assert len(cards) == count, cards
    for c in cards:
        middle = (c["pill"]["top"] + c["pill"]["bottom"]) / 2
        assert c["line"]["top"] <= middle <= c["line"]["bottom"], c
        assert not c["cut"], c
    return cards


def finish(page) -> None:
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_a_practices_finished_stays_on_the_names_line(new_page, width, height):
    page = new_page(NAME, width=width, height=height)
    practise(page, "fours-up")
    page.click("#ready-btn")
    page.locator("#finish-btn").wait_for()
    finish(page)
    expect(page.locator("#result-panel h2")).to_contain_text("Practice over")
    on_its_line(page, 1)
    shot(page, f"status-line-practice-{width}", full_page=True)


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_a_race_of_twos_statuses_stay_on_the_names_lines(new_page, make_bot, width, height):
    """Over, with each card's place before the name ("#1"), its marks after it."""
    page = new_page(NAME, width=width, height=height)
    rid = create_in_ui(page, "fours-up", 2)
    rival = make_bot("Greedy rival")
    race_against(page, rival, rid)
    rival.call(lambda c: c.finish(rid))
    finish(page)
    page.wait_for_selector("#result-panel")
    expect(page.locator("#players li .rank")).to_have_count(2)
    names = [c["name"] for c in on_its_line(page, 2)]
    assert sorted(names) == sorted([NAME, "Greedy rival"]), names
    shot(page, f"status-line-two-{width}", full_page=True)
