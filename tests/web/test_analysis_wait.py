"""A race of 8 keeps the server's solver a minute or more: while the page waits for the
analysis (asking again at each `solver-busy`), its pending line says how long it has waited,
and the page keeps asking for ANALYSIS_PATIENCE_MS, on the result and the replay page alike."""

from __future__ import annotations

import pytest

from .test_browser import finished_solo_race

pytestmark = pytest.mark.timeout(120)

TEXTS = """async () => {
  const { analysisPendingText } = await import("/js/analysis_wait.js");
  return [0, 2999, 3000, 64_900].map((ms) => analysisPendingText(1_000_000, 1_000_000 + ms)).concat(analysisPendingText(undefined));
}"""

# The server stays busy for ever: the request never settles, and the page waits.
NEVER = """() => {
  const c = window.solrace.conn;
  window.patience = [];
  c.requestWhileBusy = (msg, code, totalMs) => {
    window.patience.push([msg.t, code, totalMs]);
    return new Promise(() => {});
  };
}"""


def test_the_pending_line_says_how_long_it_has_waited(new_page):
    page = new_page("ada")
    assert page.evaluate(TEXTS) == [
        "Analysing the race…",
        "Analysing the race…",
        "Analysing the race… 3 s so far: the solver studies each player's game in turn, seconds each.",
        "Analysing the race… 64 s so far: the solver studies each player's game in turn, seconds each.",
        "Analysing the race…",
    ]
    finished_solo_race(page)
    page.evaluate(NEVER)
    page.click("#analyze")
    page.wait_for_selector("#analysis.muted")
    page.wait_for_function(
        "() => /\\b\\d+ s so far\\b/.test(document.getElementById('analysis').textContent)"
    )
    assert page.evaluate("window.patience") == [["analysis", "solver-busy", 300_000]]


def test_the_replay_page_says_it_too(new_page):
    page = new_page("ada")
    rid = finished_solo_race(page)
    page.click("#to-replay")
    page.wait_for_selector("#replay-page .replay-player .pile")
    assert page.evaluate("window.solrace.replayPage.id") == rid
    page.evaluate(NEVER)
    page.click("#replay-analyze")
    page.wait_for_function(
        "() => /\\b\\d+ s so far\\b/.test(document.getElementById('replay-analysis').textContent)"
    )
    assert page.evaluate("window.patience") == [["analysis", "solver-busy", 300_000]]
