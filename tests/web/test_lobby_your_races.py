"""The lobby's "Your races" after a reload, in headless Chromium against a real `solrace serve`.

The welcome names the races a player sits in by their ids only. A private race is never in
the public race list, and a race waiting in its lobby sends no snapshot while nothing
changes, so after a reload "Your races" had only "Race r1a2b3…" to show for it. The page
keeps each race's game and status in localStorage (client/web/static/js/lobby.js): the
button names the race from the first time it is drawn. The stored labels are those of the
races the welcome lists: a race left is forgotten at the next welcome.
"""

from __future__ import annotations

import json
import re

import pytest
from must import must
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"
LABELS_KEY = "solrace.myRaces"

# Every text a "Your races" button has had since the page began, in order: set before the
# page's own scripts run, so that a label drawn and replaced at once is caught too.
RECORD_LABELS = """
window.__myRaceLabels = [];
new MutationObserver(() => {
  for (const a of document.querySelectorAll("#my-races a.my-race")) {
    const seen = window.__myRaceLabels;
    const entry = a.dataset.race + ": " + a.textContent;
    if (seen[seen.length - 1] !== entry) seen.push(entry);
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def stored_labels(page) -> dict[str, list]:
    raw = page.evaluate(f"localStorage.getItem({LABELS_KEY!r})")
    return {rid: [game, status] for rid, game, status in json.loads(raw or "[]")}


def test_a_private_race_is_named_at_once_after_a_reload(new_page):
    page = new_page("hugo")
    base = page.url.split("#")[0]
    tile = f'.tile[data-game="{GAME}"]'
    name = page.locator(f"{tile} .tile-head h2").inner_text()
    page.click(f'{tile} [data-act="create"]')
    page.check(f'{tile} input[name="private"]')
    page.click(f'{tile} button[type="submit"]')
    page.wait_for_url(re.compile(r"#race="))
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    page.wait_for_selector("#ready-btn")
    assert page.evaluate("window.solrace.app.race.private") is True

    page.goto(base + "#/")
    button = page.locator(f'#my-races a[data-race="{rid}"]')
    expect(button).to_contain_text(name)
    expect(button).to_contain_text("not started")  # the `lobby` status, apart from the Lobby page
    assert stored_labels(page)[rid] == [GAME, "lobby"]

    page.add_init_script(RECORD_LABELS)
    page.reload()
    page.wait_for_selector(".net.online")
    expect(button).to_contain_text(name)
    labels = page.evaluate("window.__myRaceLabels")
    # from the first drawing on: the game and the status, never the race's id
    assert labels and all(label.startswith(f"{rid}: ") for label in labels), labels
    assert all(name in label and "not started" in label and "Race r" not in label for label in labels), labels
    assert rid[:6] not in button.inner_text()
    assert page.evaluate("window.solrace.app.raceGames")[rid] == GAME
    shot(page, "lobby-your-races-after-reload")

    # Left: the next welcome does not list it, and its stored label goes.
    button.click()
    page.wait_for_selector("#lobby-panel .lobby-panel")
    page.click("#lobby-panel button:has-text('Leave')")
    page.wait_for_url(re.compile(r"#/$"))
    page.reload()
    page.wait_for_selector(".net.online")
    page.wait_for_function("window.solrace.app.me !== null")
    assert rid not in page.evaluate("window.solrace.app.me.races")
    assert rid not in stored_labels(page)
    expect(page.locator("#my-races")).to_be_hidden()


def test_a_race_is_noted_as_soon_as_its_page_shows_it(new_page):
    """A tab closed on the race page (never back to the lobby) leaves the race's label stored:
    the next visit's "Your races" names its game (it said "Race r1a2b3…")."""
    page = new_page("iris")
    tile = f'.tile[data-game="{GAME}"]'
    page.click(f'{tile} [data-act="create"]')
    page.click(f'{tile} button[type="submit"]')
    page.wait_for_url(re.compile(r"#race="))
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    page.wait_for_selector("#ready-btn")
    page.wait_for_function(
        f"JSON.parse(localStorage.getItem({LABELS_KEY!r}) || '[]').some((e) => e[0] === {rid!r})"
    )
    assert stored_labels(page)[rid] == [GAME, "lobby"]
