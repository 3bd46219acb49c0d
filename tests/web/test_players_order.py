"""The race page's player list (client/web/static/js/players.js): by seat while the race runs,
by place once it is ranked (a finished race listed "#2" above "#1")."""

from __future__ import annotations

ROWS = """async (ranked) => {
  const { playerRows } = await import("/js/players.js");
  const race = {
    total: 52,
    players: [
      { player: "pa", name: "Ada", status: ranked ? "finished" : "playing", home: 10, n: 40 },
      { player: "pb", name: "Random bot", status: ranked ? "won" : "playing", home: 52, n: 90 },
    ],
    ranking: ranked ? [{ player: "pb", rank: 1 }, { player: "pa", rank: 2 }] : [],
  };
  return playerRows(race).map((li) => [li.dataset.player, (li.querySelector(".rank") || {}).textContent || null]);
}"""


def test_players_by_seat_while_running_and_by_place_once_ranked(new_page):
    page = new_page("ordo")
    page.wait_for_function("window.solrace.app.me !== null")
    assert page.evaluate(ROWS, False) == [["pa", None], ["pb", None]]
    assert page.evaluate(ROWS, True) == [["pb", "#1"], ["pa", "#2"]]
