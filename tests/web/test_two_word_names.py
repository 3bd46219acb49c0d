"""At 1280 px (the race page's side panel: 250 px) a two-word name such as "Brave Otter" stays on
one line beside the status pill in the players list: it wrapped between its words ("Greedy
rival" beside "#2" and "finished"), a card a line taller for a name that (nearly) fits. The head
of a card is 6 px roomier (its gaps 4 px, the pill's padding 5 px). A name too long for the room
wraps between its words rather than being cut: cut, two long names could look the same. A phone's
cards keep the two-word names on one line too. Screenshots: test-artifacts/web/two-word-names-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, wait_board

pytestmark = pytest.mark.timeout(180)

ME = "Brave Otter"
RIVAL = "Greedy rival"  # beside "#2" and "finished" it wrapped, 1 px short of its room
LONG = "Maximilian Throckmorton"  # 23 characters: more than a card's room at 1280 px

# Per name in the players list: its text, its title, the distinct tops of its text's line boxes
# (one per line), its box's height beside one line of its text (its first character's box),
# whether it is cut, and the top and bottom of its card's status pill.
NAMES = """() => [...document.querySelectorAll('#players li')].map((li) => {
  const name = li.querySelector('.pname');
  const all = document.createRange();
  all.selectNodeContents(name);
  const tops = new Set([...all.getClientRects()].map((r) => Math.round(r.top)));
  const first = document.createRange();
  first.setStart(name.firstChild, 0);
  first.setEnd(name.firstChild, 1);
  const line = first.getBoundingClientRect();
  const box = name.getBoundingClientRect();
  const pill = li.querySelector('.prog-pills .pill').getBoundingClientRect();
  return { name: name.textContent, title: name.title, lines: tops.size, height: box.height,
           lineHeight: line.height, top: box.top, cut: name.scrollWidth > name.clientWidth,
           pill: { top: pill.top, bottom: pill.bottom } };
})"""


def names(page, count: int) -> list[dict]:
    expect(page.locator("#players li .pname")).to_have_count(count)
    return page.evaluate(NAMES)


def on_one_line(card: dict) -> None:
    """The name is one line (one line box, a box one line high) beside its status pill."""
    assert card["lines"] == 1, card
    assert card["height"] < 1.5 * card["lineHeight"], card
    middle = (card["pill"]["top"] + card["pill"]["bottom"]) / 2
    assert card["top"] <= middle <= card["top"] + card["height"], card


def all_on_one_line(page, width: int) -> dict:
    """The two-word names whole on one line beside their pills; the longest wraps between its
    words rather than being cut (a word wider than the whole room alone is cut, titled), its
    first line beside its pill."""
    cards = {c["name"]: c for c in names(page, 3)}
    assert sorted(cards) == sorted([ME, RIVAL, LONG]), cards
    for card in cards.values():
        assert card["title"] == card["name"], card
        middle = (card["pill"]["top"] + card["pill"]["bottom"]) / 2
        assert card["top"] <= middle <= card["top"] + card["height"], card
    for name in (ME, RIVAL):
        on_one_line(cards[name])
        assert not cards[name]["cut"], cards[name]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    return cards


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_two_word_names_stay_on_one_line(new_page, make_bot, width, height):
    """In the race's lobby, then over (each card's place before the name, "finished" after)."""
    page = new_page(ME, width=width, height=height)
    rid = create_in_ui(page, "fours-up", 3)
    rivals = [make_bot(name) for name in (RIVAL, LONG)]
    for rival in rivals:
        rival.call(lambda c: c.join(rid))
        rival.call(lambda c: c.ready(rid))
    expect(page.locator("#players li .pill.p-ready")).to_have_count(2)
    all_on_one_line(page, width)
    shot(page, f"two-word-names-lobby-{width}", full_page=True)
    page.click("#ready-btn")
    wait_board(page)
    for rival in rivals:
        rival.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    expect(page.locator("#players li .rank")).to_have_count(3)
    all_on_one_line(page, width)
    shot(page, f"two-word-names-over-{width}", full_page=True)
