"""The analysis (the result's and the replay's) and the replay's check line name moves as the
board names its piles: they wrote the engine's notation, "t2>f5; a winning line from there: t0>f4
r1>t3", piles counted from 0, which the board never shows ("tableau 1", "Sixes foundation 1").
The engine's text stays at hand: the analysis sentence's title, a long line's disclosure, the
check line's move's title. Screenshot: test-artifacts/web/analysis-pile-names.png."""

from __future__ import annotations

import re

import pytest

from .conftest import shot

pytestmark = pytest.mark.timeout(120)

ENGINE_MOVE = re.compile(r"\b[a-z]\d*(?::\d+)?>[a-z]\d*\b")

# Racing Aces' layout: f4 is the first pile of "Sixes ↓ 6→A", f12 of "Kings ↓ K→A".
LOST_AT = {
    "player": "p1",
    "name": "ada",
    "verdict": "lost-at",
    "last_winnable": 36,
    "losing_move": "t2>f5",
    "line": ["t0>f4", "r1:2>t3", "draw"],
    "text": "won until move 37, t2>f5; a winning line from there: t0>f4 r1:2>t3 draw",
}
LONG_LINE = [["t0>f4", "r1>f12", "w>t5", "draw"][i % 4] for i in range(30)]
STILL_WINNABLE = {
    "player": "p2",
    "name": "bo",
    "verdict": "still-winnable",
    "last_winnable": 12,
    "losing_move": None,
    "line": LONG_LINE,
    "text": "still winnable at the end; a winning line from there: " + " ".join(LONG_LINE),
}

ITEMS = """async ([lost, still]) => {
  const { analysisItem, boardPileText } = await import("./js/words.js");
  const { h } = await import("./js/dom.js");
  const pileName = (pile) => boardPileText("racing-aces", pile);
  const list = h("ul", { id: "analysis", class: "analysis" }, analysisItem(h, lost, pileName), analysisItem(h, still, pileName));
  // (on the page's body: the lobby draws #main again at the welcome and the daily probe's answer)
  document.body.append(h("section", { class: "panel" }, list));
  const sentence = (li) => [...li.childNodes].filter((n) => n.nodeName !== "DETAILS").map((n) => n.textContent).join("");
  const [a, b] = list.children;
  return {
    lost: sentence(a), lostTitle: a.title, lostFolded: !!a.querySelector("details"),
    still: sentence(b), stillTitle: b.title,
    whole: [...b.querySelectorAll("details ol li")].map((li) => li.textContent),
    start: b.querySelector("details ol").start,
    engine: b.querySelector("details code").textContent,
  };
}"""


def test_the_analysis_names_moves_as_the_board_names_its_piles(new_page):
    page = new_page("ada")
    got = page.evaluate(ITEMS, [LOST_AT, STILL_WINNABLE])
    assert got["lost"] == (
        "ada: won until move 37, tableau 3 → Sixes foundation 2; a winning line from there: "
        "tableau 1 → Sixes foundation 1, 2 cards: reserve 2 → tableau 4, draw"
    ), got
    assert got["lostTitle"] == LOST_AT["text"] and not got["lostFolded"]  # a short line: nothing folds
    # a long line: its first eight moves in the sentence, the whole under the disclosure, numbered
    # from the move after the player's last winnable one, and the engine's text beside it
    first = ["tableau 1 → Sixes foundation 1", "reserve 2 → Kings foundation 1", "waste → tableau 6", "draw"]
    assert got["still"] == (
        "bo: still winnable at the end; a winning line from there: " + ", ".join(first * 2) + " … (30 moves)"
    ), got
    assert got["whole"] == [first[i % 4] for i in range(30)] and got["start"] == 13, got
    assert got["engine"] == " ".join(LONG_LINE) and got["stillTitle"] == STILL_WINNABLE["text"]
    for said in (got["lost"], got["still"], *got["whole"]):
        assert not ENGINE_MOVE.search(said), said
    page.click("#analysis details summary")
    shot(page, "analysis-pile-names")


def test_the_replays_check_line_names_a_broken_move_as_the_board_does(new_page):
    page = new_page("ada")
    line = page.evaluate(
        """async () => {
          const { position } = await import("./js/rules.js");
          const { verifyPanel } = await import("./js/replay_views.js");
          const { h } = await import("./js/dom.js");
          const view = position("racing-aces", { t0: "9h" }).viewText();
          // ada's third move, t0>f4, does not play on the re-dealt board: 9♥ on an empty Sixes pile
          const d = { players: [{ player: "p1", name: "ada", views: [view, view, view], homes: [0, 0, 0], broken: { index: 2, move: "t0>f4" } }] };
          const panel = verifyPanel(h, null, { game: "racing-aces", ranking: [] }, d);
          const check = panel.querySelector("#replay-check");
          return { text: check.textContent, title: check.querySelector("[title]").title };
        }"""
    )
    assert (
        line["text"]
        == "✘ ada's move 3 (9♥ from tableau 1 to Sixes foundation 1) is not legal in the re-dealt game"
    ), line
    assert line["title"] == "t0>f4"
