"""The lobby's list of live races offers Join only on a lobby with a free seat (`race_list`'s
`seats`, docs/protocol.md §4): a full one says so, where Join led to "This race is full"."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(120)

ACTIONS = """(rid) => {
  const row = document.querySelector(`#race-list tr[data-race="${rid}"]`);
  return row && row.querySelector("td.actions").textContent;
}"""


def test_a_full_lobby_is_listed_without_join(new_page, make_bot):
    ann, bob = make_bot("ann"), make_bot("bob")
    full = ann.call(lambda c: c.create("fours-up", seats=2)).race
    bob.call(lambda c: c.join(full))
    free = ann.call(lambda c: c.create("fours-up", seats=3)).race
    page = new_page("cyd")
    page.evaluate("async () => (await import('/js/lobby.js')).refreshRaces()")
    page.wait_for_function(f"({ACTIONS})('{full}') !== null && ({ACTIONS})('{free}') !== null")
    assert page.evaluate(ACTIONS, full) == "fullWatch"
    assert page.evaluate(ACTIONS, free) == "JoinWatch"
