"""A reply's race snapshot can leave the server after newer events of its race went out (the
bus brought a rival's `ready` while the reply still waited on a write): the page keeps what the
newer events showed, and takes only the reply's invite. Before, applying it put the rival's seat
back to "not ready" until the next event."""

from __future__ import annotations

import msgspec
import pytest

from .test_browser import create_in_ui

pytestmark = pytest.mark.timeout(120)

APPLY = """async (snap) => {
  const { applySnapshot } = await import("/js/race_sync.js");
  applySnapshot(snap);
}"""

BOB_READY = """(pid) => {
  const r = window.solrace.app.race;
  const p = r && r.players.find((x) => x.player === pid);
  return !!(p && p.ready);
}"""


def test_an_older_snapshot_does_not_undo_a_rivals_ready(new_page, make_bot):
    page = new_page("ada-stale")
    rid = create_in_ui(page, "fours-up", 3)
    bob = make_bot("bob")
    older = msgspec.to_builtins(bob.call(lambda c: c.join(rid)))  # bob seated, not ready
    bob.call(lambda c: c.ready(rid))
    pill = f'#players li[data-player="{bob.client.player}"] .pill.p-ready'
    page.wait_for_selector(pill)
    ver = page.evaluate("window.solrace.app.race.ver")
    assert older["ver"] < ver and not any(p["ready"] for p in older["players"] if p["name"] == "bob")

    page.evaluate(APPLY, older)
    assert page.evaluate(BOB_READY, bob.client.player)
    assert page.evaluate("window.solrace.app.race.ver") == ver
    # the same version again is applied (a reply at the latest version), though a move's ack
    # (lastVer) may be ahead of it: an ack may come before a rival's older event
    newest = msgspec.to_builtins(bob.call(lambda c: c.ready(rid, False)))
    page.wait_for_function(f"() => !({BOB_READY})('{bob.client.player}')")
    page.evaluate("window.solrace.app.lastVer += 5")
    page.evaluate(APPLY, {**newest, "time_limit_s": 123})  # marked, to see it taken
    assert not page.evaluate(BOB_READY, bob.client.player)
    assert page.evaluate("window.solrace.app.race.time_limit_s") == 123
