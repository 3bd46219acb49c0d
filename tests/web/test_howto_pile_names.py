"""The how-to page's try-it board says where a card went in the board's own words: a Racing Aces
card put on the first Kings pile went "to foundation 13" (the pile's index in the engine), where
the board labels the group "Kings ↓ K→A". Now "to Kings foundation 1". Piles of plainly labelled
groups (Fours Up's "Foundations", every "Tableau") keep their plain names.
Screenshots: test-artifacts/web/howto-names-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_learn_replay_phone import select_and_drop

pytestmark = pytest.mark.timeout(120)

# game: (moves on its try-it position, what the status says after the last)
CASES = {
    "racing-aces": (
        ["r0>f0", "w>f0", "t0>f12"],
        "You moved J♥ from tableau 1 to Kings foundation 1. 8 cards home.",
    ),
    "double-aces-and-kings": (["w>f8"], "You moved J♣ from waste to Kings foundation 1. 5 cards home."),
    "rouge-et-noir": (
        ["t2>f0", "t3>f1"],
        "You moved A♣ from tableau 4 to colour foundation 2. 3 cards home.",
    ),
    "fours-up": (["t0>f0"], "You moved 7♣ from tableau 1 to foundation 1. 5 cards home."),
}


@pytest.mark.parametrize("game", CASES)
def test_the_howto_names_piles_as_its_board_labels_them(new_page, game):
    moves, said = CASES[game]
    page = new_page("learner")
    page.goto(page.url.split("#")[0] + f"#howto={game}")
    page.wait_for_selector(f'#howto[data-game="{game}"] #howto-board .pile')
    for move in moves:
        select_and_drop(page, "#howto-board", move)
    expect(page.locator("#howto-status")).to_have_text(said)
    shot(page, f"howto-names-{game}")
