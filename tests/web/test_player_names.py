"""Players' names as the pages show them, in headless Chromium: on the race page's side panel
(1280x800, a finished race: each card with its place and status) a name wraps only between
words, and a name too long for the card, without a space, is cut short with an ellipsis, never
broken mid-word; in the header of a phone (375x740) the name box shows a guest's whole name."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

from .conftest import shot
from .test_browser import create_in_ui, wait_board

pytestmark = pytest.mark.timeout(180)

LONG = "Grandmasterofthepatience"  # 24 characters, the longest name, and no space

# Per name shown in `sel`: [word, the lines it is drawn on] for each word of the name's own text,
# the width it needs and the width it has, and its text-overflow.
WORDS = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  const text = el.firstChild;
  const words = [];
  for (const m of text.data.matchAll(/\\S+/g)) {
    const r = document.createRange();
    r.setStart(text, m.index);
    r.setEnd(text, m.index + m[0].length);
    words.push([m[0], new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size]);
  }
  return { name: text.data, words, need: el.scrollWidth, has: el.clientWidth,
           overflow: getComputedStyle(el).textOverflow };
})"""


def test_names_on_a_finished_race_wrap_between_words_only(new_page, make_bot):
    page = new_page("player-aabc", width=1280, height=800)
    rid = create_in_ui(page, "racing-aces", 3)
    bots = [make_bot("Greedy rival"), make_bot(LONG)]
    for bot in bots:
        bot.call(lambda c: c.join(rid))
        bot.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    for bot in bots:
        bot.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel", timeout=DEADLINE * 1000)
    page.wait_for_selector("#players li .rank")
    shot(page, "names-finished-race")

    names = {n["name"]: n for n in page.evaluate(WORDS, "#players .pname")}
    assert set(names) == {"player-aabc", "Greedy rival", LONG}, names
    for n in names.values():
        assert all(lines == 1 for _, lines in n["words"]), n  # no word broken across lines
    for name in ("player-aabc", "Greedy rival"):
        assert names[name]["need"] <= names[name]["has"], names[name]  # shown whole
    # the name with no space to wrap at: cut short, with an ellipsis
    long = names[LONG]
    assert long["need"] > long["has"] and long["overflow"] == "ellipsis", long
    # every card within the side panel
    right = page.evaluate("document.querySelector('.side').getBoundingClientRect().right")
    cards = page.evaluate(
        "[...document.querySelectorAll('#players li')].map((li) => li.getBoundingClientRect().right)"
    )
    assert max(cards) <= right, (cards, right)


def test_a_phone_header_shows_a_guests_whole_name(new_page):
    page = new_page(None, width=375, height=740)
    page.wait_for_function("window.solrace.app.me !== null")
    name = page.evaluate("window.solrace.app.me.name")
    assert name.startswith("player-")
    box = page.locator("#name")
    assert box.input_value() == name
    need, has = page.evaluate(
        "[document.querySelector('#name').scrollWidth, document.querySelector('#name').clientWidth]"
    )
    assert need <= has, (name, need, has)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(page, "names-phone-header")
