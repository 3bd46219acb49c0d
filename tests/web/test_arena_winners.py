"""The end of an arena in headless Chromium: the winners on the arena page, and the
podium place in the winner's profile."""

from __future__ import annotations

import re

import pytest

from .arena_races import account_and_rival_race_a_short_arena, arena_server
from .conftest import shot

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """This module's server: clients may create arenas, none is scheduled, fast loops."""
    srv = arena_server(tmp_path_factory.mktemp("web-arena-winners"), countdown_ms=1200)
    yield srv
    srv.stop()


def test_winners_on_the_arena_page_and_in_the_profile(new_page, make_bot):
    ada, bob = make_bot("cup-ada"), make_bot("cup-bob")
    # ada's one move wins (among equal cards home, more moves rank first); bob never moves (absent: 0)
    account_and_rival_race_a_short_arena(
        ada, bob, account="cup-ada", arena="web-cup", name="Web Cup", moves=(1, 0)
    )

    page = new_page("cup-fan")
    page.goto(page.url.split("#")[0] + "#arena=web-cup")
    page.wait_for_selector("#arena-standings")
    # the arena ends 10 s after its creation; the page shows the final standings and winners
    page.wait_for_selector('#arena-winners li[data-rank="1"]', timeout=60_000)
    winners = page.locator("#arena-winners").inner_text()
    assert "cup-ada" in winners and "cup-bob" not in winners
    shot(page, "arena-winners")

    page.click('#arena-winners a[href^="#profile="]')
    page.wait_for_selector('#arena-podiums tr[data-arena="web-cup"]')
    assert "1 of 2" in page.locator("#arena-podiums").inner_text()
    # when it ended, in UTC as every arena time (its name may carry a UTC start)
    ended = page.locator('#arena-podiums tr[data-arena="web-cup"] td').nth(2).inner_text()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", ended), ended
    shot(page, "profile-arena-podium", full_page=True)
