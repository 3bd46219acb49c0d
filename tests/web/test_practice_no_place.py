"""A race of one (a practice, a daily attempt) shows no place beside its player once over: the side
panel said "#1" of one, under a result that says "Practice over: 8/104 cards home" (no rival to
rank against). A race of two keeps its places (tests/web/test_players_order.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(120)

ROW = """async () => {
  const { playerRows } = await import("/js/players.js");
  const race = { total: 104, players: [{ player: "pa", name: "Ada", status: "finished", home: 8, n: 0 }], ranking: [{ player: "pa", rank: 1 }] };
  return playerRows(race).map((li) => [li.dataset.player, (li.querySelector(".rank") || {}).textContent || null]);
}"""


def test_a_race_of_one_shows_no_place(new_page):
    page = new_page("uno")
    page.wait_for_function("window.solrace.app.me !== null")
    assert page.evaluate(ROW) == [["pa", None]]


def test_a_finished_practice_shows_no_place(new_page):
    page = new_page("una", width=390, height=844)
    practice_started(page, "fours-up")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel h2")).to_contain_text("Practice over")
    expect(page.locator("#players li.mine")).to_contain_text("finished")
    expect(page.locator("#players li .rank")).to_have_count(0)
