"""Arena times are written in UTC, 24-hour, as the scheduled arenas' names are ("Daily Racing
Aces · 14:00 UTC"), whatever the browser's time zone and 12- or 24-hour habit: the arena list's
start times and an arena page's hours. The list runs a day ahead: an arena starting on a later
UTC day than the list's `now` is not "Later today", and its start carries its date."""

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
    two and a half hours from now: the arena list shows it under "Later today" (from 21:30 UTC,
    when it starts the next day: "Later", with its date)."""
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
    # the day of the list's own `now` (the server's reply), not of a clock read here: the test
    # may run across midnight UTC
    listed = page.evaluate(
        """async (id) => { const { pages } = await import("/js/state.js"); const l = pages.arena.list;
          return { now: l.now, starts: l.arenas.find((a) => a.id === id).starts }; }""",
        row.get_attribute("data-arena"),
    )
    day = datetime.fromtimestamp(listed["starts"] / 1000, UTC).date()
    on_its_day = f"{day.isoformat()} {starts.group(0)}"  # a start of another day than now's
    if day == datetime.fromtimestamp(listed["now"] / 1000, UTC).date():
        assert cells.nth(2).inner_text() == starts.group(0)
        assert page.locator("#arena-later").inner_text() == "Later today"
    else:
        assert cells.nth(2).inner_text() == on_its_day
        assert page.locator("#arena-later").inner_text() == "Later"
    shot(page, "arena-list-later-utc")

    cells.nth(0).locator("a").click()
    page.wait_for_selector("#arena-when")
    begin, end = page.locator("#arena-when").inner_text().split("–")
    assert begin in (starts.group(0), on_its_day)  # (the page's now may be past midnight)
    assert re.fullmatch(r"(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} UTC", end), end


# The list drawn from a list of arenas at `now` (its `now` is the server's): the heading over the
# later arenas and their start cells.
LATER = """async ([now, starts]) => {
  const { arenaListEl } = await import("/js/arena_views.js");
  const { h } = await import("/js/dom.js");
  const arenas = starts.map((s, i) => ({
    id: `a${i}`, name: `Arena ${i}`, game: "racing-aces", starts: s, ends: s + 1_800_000,
    status: "upcoming", players: 0, final: false }));
  const el = arenaListEl(h, { now, arenas }, null, now);
  return { heading: el.querySelector("#arena-later")?.textContent ?? null,
           starts: [...el.querySelectorAll("tr.arena-row.later")].map((r) => r.children[2].textContent) };
}"""


def test_a_later_arena_of_the_next_utc_day_is_not_later_today(new_page):
    # at 21:30 UTC (2026-12-04), an arena at 23:00 UTC and one at 00:30 UTC the next day, in a
    # browser whose own day is already the 5th: the list's day is the UTC one of its `now`
    page = new_page("late-owl", timezone_id="Asia/Kolkata", locale="en-US")
    now = int(datetime(2026, 12, 4, 21, 30, tzinfo=UTC).timestamp() * 1000)
    hour = 3_600_000
    both = page.evaluate(LATER, [now, [now + 90 * 60_000, now + 3 * hour]])
    assert both == {"heading": "Later", "starts": ["23:00 UTC", "2026-12-05 00:30 UTC"]}
    today = page.evaluate(LATER, [now, [now + 90 * 60_000]])
    assert today == {"heading": "Later today", "starts": ["23:00 UTC"]}
    # just before midnight, an arena of the next day within the hour is not a later one
    soon = page.evaluate(LATER, [now + 2 * hour + 25 * 60_000, [now + 3 * hour]])
    assert soon == {"heading": None, "starts": []}


def test_an_arena_pages_hours_carry_the_date_of_another_day(new_page):
    # words.utcSpanText, as the arena page writes its hours (#arena-when), at 21:30 UTC
    page = new_page("hours-owl", timezone_id="Asia/Kolkata", locale="en-US")
    now = int(datetime(2026, 12, 4, 21, 30, tzinfo=UTC).timestamp() * 1000)
    minute = 60_000
    span = "async ([s, e, now]) => (await import('/js/words.js')).utcSpanText(s, e, now)"
    assert page.evaluate(span, [now + 30 * minute, now + 90 * minute, now]) == "22:00 UTC–23:00 UTC"
    # running across midnight: its end is tomorrow's
    assert page.evaluate(span, [now + 120 * minute, now + 150 * minute, now]) == (
        "23:30 UTC–2026-12-05 00:00 UTC"
    )
    # a start of the next day: the hours alone would read as today's
    assert page.evaluate(span, [now + 165 * minute, now + 195 * minute, now]) == (
        "2026-12-05 00:15 UTC–00:45 UTC"
    )
