"""The daily page left open across the close of its day (midnight UTC).

At the close, by the browser's estimate of the server's clock, the page stops offering the
day's attempt and asks for its day again (client/web/static/js/daily.js `tick`,
`reloadAtClose`): while the server still says the day is open (its clock a moment behind), it
asks again with a backoff. With no date in the route the page moves to the new day; with the
day's date, it shows the day closed with its seed, and asks again until the day is final (a
short grace after the close), when its top replays are published.

The server runs in-process (tests/web/test_daily_return.py) so that its daily clock can be
moved; the browser is moved through its connection's clock (as
tests/web/test_daily_result_day_change.py does), not through page.clock.
"""

from __future__ import annotations

import datetime

import pytest
from playwright.sync_api import expect

from server.daily import days

from . import test_daily_return
from .test_daily_return import GAME, bot_attempt

daily_server = test_daily_return.daily_server
open_page = test_daily_return.open_page

pytestmark = pytest.mark.timeout(180)

# The browser's clock moved to `after` ms past `closes`, and the frames it sends counted by
# type from then on (window.sent).
CLOCK_PAST = """([closes, after]) => {
  const c = window.solrace.conn;
  const shift = closes + after - (Date.now() + c.offset);
  c.now = () => Date.now() + c.offset + shift;
  window.sent = {};
  if (!c.__counting) {
    c.__counting = true;
    const send = c.sendRaw.bind(c);
    c.sendRaw = (msg) => { window.sent[msg.t] = (window.sent[msg.t] || 0) + 1; return send(msg); };
  }
}"""


def next_day(date: str) -> str:
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=1)).isoformat()


@pytest.mark.daily  # today's day on the real clock: clear of midnight (tests/conftest.py)
def test_today_moves_to_the_next_day_at_the_close(daily_server, open_page):
    srv = daily_server
    date = days.day_of(srv.app.daily.clock())
    closes = days.closes_at(date)
    page = open_page("dora")
    page.goto(srv.http + f"#daily={GAME}")
    page.wait_for_selector("#daily-start")
    expect(page.locator("#daily-info h2")).to_contain_text(date)

    # The browser reaches the close first; the server still says the day is open: the page
    # no longer offers it, and asks again with a backoff (at once, then 1 s later, ...).
    page.evaluate(CLOCK_PAST, [closes, 300])
    page.wait_for_selector("#daily-closing")
    assert page.locator("#daily-start").count() == 0
    assert "Closed" in page.locator("#daily-info dl").inner_text()
    page.wait_for_function("(window.sent.daily || 0) >= 2")

    # The server's midnight: the next answer is the new day, open, drawn in place.
    srv.shift_ms = closes - srv.base() + 1000
    tomorrow = next_day(date)
    expect(page.locator("#daily-info h2")).to_contain_text(tomorrow, timeout=30_000)
    page.wait_for_selector("#daily-start")
    assert page.locator("#daily-closing").count() == 0
    assert page.input_value("#daily-date") == tomorrow
    expect(page.locator("#daily-left")).to_have_text("23h 59m")
    asked = page.evaluate("window.sent.daily")
    assert 2 <= asked <= 7, asked  # a few tries, then no more
    page.wait_for_function("(window.sent.leaderboard || 0) >= 1")  # the new day's board
    assert page.locator("#daily-start").inner_text().startswith("Play today's")


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_a_dated_day_closes_then_turns_final(daily_server, open_page):
    srv = daily_server
    date = days.day_of(srv.app.daily.clock())
    closes = days.closes_at(date)
    srv.run(bot_attempt(srv.ws, "early-bird", 6))
    page = open_page("ezra")
    page.goto(srv.http + f"#daily={GAME}&date={date}")
    page.wait_for_selector("#daily-start")
    page.wait_for_selector("#leaderboard tbody tr[data-player]")
    assert page.locator("#daily-seed").count() == 0

    # Past the close for both, within the grace before the day is final: closed, its seed out.
    srv.shift_ms = closes - srv.base() + 1000
    page.evaluate(CLOCK_PAST, [closes, 1000])
    page.wait_for_selector("#daily-seed", timeout=30_000)
    expect(page.locator("#daily-info h2 .pill").first).to_have_text("closed")
    page.wait_for_selector("#daily-verify.ok")
    assert page.locator("#daily-start").count() == 0
    assert page.locator("#daily-closing").count() == 0
    assert page.locator("#daily-info h2").inner_text().count(date) == 1
    assert "final" not in page.locator("#daily-info h2").inner_text()
    assert page.locator("#daily-winner").count() == 0  # nothing published before the day is final

    # Past the grace: the page, asking again by itself, shows the day final with its top replays.
    srv.shift_ms = closes - srv.base() + srv.app.daily.finalize_grace_ms + 1000
    page.wait_for_selector("#daily-info .pill:has-text('final')", timeout=60_000)
    page.wait_for_selector("#daily-winner")
    assert page.locator("#leaderboard a.replay-link").count() == 1
    assert page.input_value("#daily-date") == date
