"""Arena times are written in UTC, 24-hour, as the scheduled arenas' names are ("Daily Racing
Aces · 14:00 UTC"), whatever the browser's time zone and 12- or 24-hour habit: the arena list's
start times and an arena page's hours."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from .accounts_pages import base
from .conftest import Server, shot

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """A server whose one scheduled arena, a daily one (its name carries its UTC start), starts
    two and a half hours from now: the arena list shows it under "Later today"."""
    now = datetime.now(UTC)
    offset = (now.hour * 60 + now.minute + 150) % 1440
    rule = {
        "kind": "daily",
        "games": ["racing-aces"],
        "every": "1d",
        "offset": f"{offset}m",
        "duration": "30m",
    }
    srv = Server(
        tmp_path_factory.mktemp("web-arena-times"),
        countdown_ms=1200,
        arena_schedule=json.dumps([rule]),
        arena_tick_ms=200,
        arena_update_ms=200,
    )
    yield srv
    srv.stop()


def test_arena_start_times_are_utc_like_the_names(new_page):
    # a browser 5 h 30 ahead of UTC, on a 12-hour clock: its own clock reads another time
    page = new_page("night-owl", timezone_id="Asia/Kolkata", locale="en-US")
    page.goto(base(page) + "#arenas")
    row = page.locator("tr.arena-row.later").first
    row.wait_for()
    cells = row.locator("td")
    name = cells.nth(0).inner_text()
    starts = re.search(r"\d{2}:\d{2} UTC$", name)
    assert starts, name
    assert cells.nth(2).inner_text() == starts.group(0)
    shot(page, "arena-list-later-utc")

    cells.nth(0).locator("a").click()
    page.wait_for_selector("#arena-when")
    begin, end = page.locator("#arena-when").inner_text().split("–")
    assert begin == starts.group(0)
    assert re.fullmatch(r"\d{2}:\d{2} UTC", end), end
