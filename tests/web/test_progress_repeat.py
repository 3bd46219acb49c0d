"""Events at or below a resync's version may still follow it (the server's event feed ran
behind Redis; docs/protocol.md §1). The page drops a `progress` already in the snapshot on
hand: applied, bob's older progress would show him playing again after his finish, until the
race's end."""

from __future__ import annotations

import pytest

from .test_browser import create_in_ui

pytestmark = pytest.mark.timeout(120)

# The race as a resync would give it a little later: bob has finished (30 moves, 41 home).
AHEAD = """async (pid) => {
  const { applySnapshot } = await import("/js/race_sync.js");
  const { app } = await import("/js/state.js");
  const ver = app.race.ver + 10;
  const players = app.race.players.map((p) => (p.player === pid ? { ...p, n: 30, home: 41, status: "finished" } : p));
  applySnapshot({ ...app.race, ver, status: "running", players });
  return ver;
}"""

BOB = """(pid) => {
  const p = window.solrace.app.race.players.find((x) => x.player === pid);
  return [p.n, p.home, p.status];
}"""


def test_a_progress_already_in_the_snapshot_does_not_put_a_row_back(new_page, make_bot):
    page = new_page("ada-repeat")
    rid = create_in_ui(page, "fours-up", 3)
    bob = make_bot("bob")
    bob.call(lambda c: c.join(rid))
    pid = bob.client.player
    page.wait_for_selector(f'#players li[data-player="{pid}"]')
    ver = page.evaluate(AHEAD, pid)
    progress = {"t": "progress", "race": rid, "player": pid, "total": 52, "at": 1}
    page.evaluate(
        "(m) => window.solrace.conn.emit('progress', m)",
        {**progress, "ver": ver - 1, "n": 29, "home": 40, "status": "playing"},
    )
    assert page.evaluate(BOB, pid) == [30, 41, "finished"]
    page.evaluate(
        "(m) => window.solrace.conn.emit('progress', m)",
        {**progress, "ver": ver + 1, "n": 31, "home": 41, "status": "finished"},
    )
    assert page.evaluate(BOB, pid) == [31, 41, "finished"]
