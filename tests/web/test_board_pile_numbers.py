"""One numbering of the piles a player sees, from 1: Rouge et Noir's board labelled its colour
foundations "Colour ↑ A→K (pairs f0·f1, f2·f3)" (the engine's names, from 0) while the hints,
the how-to and the replays say "colour foundation 2" (words.boardPileText). The label now says
"(pairs 1·2, 3·4)", the piles legend the same, and a pile's accessible name is the one the
hints use ("colour foundation 2", "sequence foundation 1", not "foundation 5").
Screenshot: test-artifacts/web/pile-numbers-rouge-et-noir.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_learn_replay_phone import select_and_drop

pytestmark = pytest.mark.timeout(120)

GAMES = ["racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"]
ENGINE_NAME = re.compile(r"\b[ftr]\d+\b", re.IGNORECASE)


def texts(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map((e) => e.textContent)")


def test_rouge_et_noir_labels_its_pairs_as_the_hints_number_its_piles(new_page):
    page = new_page("counter")
    page.goto(page.url.split("#")[0] + "#howto=rouge-et-noir")
    page.wait_for_selector('#howto[data-game="rouge-et-noir"] #howto-board .pile')
    labels = texts(page, "#howto-board .glabel")
    assert "Colour ↑ A→K (pairs 1·2, 3·4)" in labels, labels
    legend = texts(page, "#howto .legend-list dt")
    assert "Colour ↑ A→K (pairs 1·2, 3·4)" in legend, legend
    # the how-to's moves put A♦ on the first colour pile and A♣ on the second: the words and the
    # pile's accessible name agree on "colour foundation 2"
    for move in ["t2>f0", "t3>f1"]:
        select_and_drop(page, "#howto-board", move)
    expect(page.locator("#howto-status")).to_contain_text("to colour foundation 2.")
    f1 = page.locator('#howto-board .pile[data-pile="f1"] [aria-label]').first
    expect(f1).to_have_attribute("aria-label", re.compile(r"^ace of clubs, colour foundation 2\b"))
    f4 = page.locator('#howto-board .pile[data-pile="f4"]')
    expect(f4).to_have_attribute("aria-label", re.compile(r"^sequence foundation 1, "))
    shot(page, "pile-numbers-rouge-et-noir")


@pytest.mark.parametrize("game", GAMES)
def test_no_board_label_shows_an_engine_pile_name(new_page, game):
    """Every game's group labels and piles legend, as a player reads them: no "f0", "t3"."""
    page = new_page("reader")
    page.goto(page.url.split("#")[0] + f"#howto={game}")
    page.wait_for_selector(f'#howto[data-game="{game}"] #howto-board .pile')
    shown = texts(page, "#howto-board .glabel") + texts(page, "#howto .legend-list dt")
    assert shown and not [t for t in shown if ENGINE_NAME.search(t)], shown
