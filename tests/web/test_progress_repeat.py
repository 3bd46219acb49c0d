"""A resync's `state` and the events around it (docs/protocol.md §1). Events at or below its
version may still follow it (the server's event feed ran behind Redis): the page drops a
`progress` already in the snapshot on hand; applied, bob's older progress would show him
playing again after his finish, until the race's end. And its own events may go past its
snapshot: the page applies them."""

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


def bob_seated(page, make_bot) -> tuple:
    """The page's race of 3 seats, bob seated in it and shown: the page, the race, bob's id."""
    rid = create_in_ui(page, "fours-up", 3)
    bob = make_bot("bob")
    bob.call(lambda c: c.join(rid))
    pid = bob.client.player
    page.wait_for_selector(f'#players li[data-player="{pid}"]')
    return page, rid, pid


def test_a_progress_already_in_the_snapshot_does_not_put_a_row_back(new_page, make_bot):
    page, rid, pid = bob_seated(new_page("ada-repeat"), make_bot)
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


# A state whose events go past its snapshot: bob finished after the snapshot was read.
STATE = """async ([pid, rid]) => {
  const { applyState } = await import("/js/race_sync.js");
  const { app } = await import("/js/state.js");
  const ver = app.race.ver + 10;
  const race = { ...app.race, ver, status: "running" };
  const ev = { t: "progress", race: rid, ver: ver + 1, player: pid, n: 30, home: 41, total: 52, status: "finished", at: 1 };
  applyState({ t: "state", race, events: [{ ...ev, ver: ver, n: 29, home: 40, status: "playing" }, ev] });
  return [ver, app.lastVer];
}"""


def test_a_states_events_past_its_snapshot_are_applied(new_page, make_bot):
    """Left out, the page showed the older rows, and took the next live event for a gap and
    resynced again."""
    page, rid, pid = bob_seated(new_page("ada-state"), make_bot)
    ver, last = page.evaluate(STATE, [pid, rid])
    assert last == ver + 1
    assert page.evaluate(BOB, pid) == [30, 41, "finished"]
