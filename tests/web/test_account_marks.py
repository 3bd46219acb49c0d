"""The race page marks an account's name and a bot's, and not a guest's who took the account's
name (docs/protocol.md §3 player map `account`), in headless Chromium; each mark is labelled
for screen readers."""

from __future__ import annotations

import pytest

from protocol import messages as m

from .conftest import shot
from .test_browser import create_in_ui

pytestmark = pytest.mark.timeout(180)

# The marks beside each name of the players' panel: [name, [aria-label of each mark]].
MARKS = """() => [...document.querySelectorAll('#players li')].map((li) => [
  li.querySelector('.pname').firstChild.data,
  [...li.querySelectorAll('.acct-badge, .bot-badge')].map((b) => b.getAttribute('aria-label')),
])"""


def test_the_players_panel_marks_the_account_and_not_its_look_alike(new_page, make_bot):
    page = new_page("player-mark", width=1280, height=800)
    rid = create_in_ui(page, "racing-aces", 4)
    # A guest who took the name before it was claimed keeps it (a hello now would be refused:
    # `name-taken`), with no mark.
    look_alike = make_bot("Marker")
    real = make_bot("Marker")
    assert real.call(lambda c: c.request(m.Claim(name="Marker", password="correct horse"))).name == "Marker"
    for c in (real, look_alike):
        c.call(lambda c: c.join(rid))
    page.wait_for_function("document.querySelectorAll('#players li').length === 3")
    shot(page, "account-marks")
    marks = dict(map(tuple, page.evaluate(MARKS)))
    assert marks == {"player-mark": [], "Marker": ["account"], "Marker 2": []}, marks


def test_a_guest_cannot_rename_itself_after_an_account(new_page, make_bot):
    """The server refuses the name (`name-taken`): the page says so and keeps the guest's name."""
    real = make_bot("Namer")
    assert real.call(lambda c: c.request(m.Claim(name="Namer", password="correct horse"))).name == "Namer"
    page = new_page("player-namer")
    page.wait_for_function("window.solrace.app.me !== null")
    page.fill("#name", "NAMER")
    page.press("#name", "Enter")
    page.wait_for_selector(".toast.error:has-text('choose another name')")
    page.wait_for_function("document.querySelector('#name').value === 'player-namer'")
    page.wait_for_selector(".net.online")
    assert page.evaluate("window.solrace.app.me.name") == "player-namer"
    assert page.evaluate("localStorage.getItem('solrace.name')") == "player-namer"
