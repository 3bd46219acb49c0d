"""A daily attempt's result left on screen across the close of its day (midnight UTC).

Before the close the result says the seed is revealed after the day closes and offers no
replay; after it, that the day is closed, with the replay. The race is over, so no event
redraws the page at the close: the result page arms a timer for the close itself
(client/web/static/js/result.js), cleared when the page is left.

The browser is moved to just before the close through its connection's clock (its
estimate of the server's time, as tests/web/test_daily_return.py does), with the result
redrawn there; the server's clock stays where it is (nothing here asks it about the day).
"""

from __future__ import annotations

import math
import re

import pytest
from must import must

from .conftest import shot

pytestmark = pytest.mark.timeout(180)

GAME = "fours-up"

# In the page: the connection's clock moved to `before` ms ahead of the close of the day of
# race `rid`, and the race page redrawn there. Returns what the result showed just then.
CLOCK_TO_BEFORE_THE_CLOSE = """async ([rid, before]) => {
  const { dailyClosesAt } = await import("/js/result.js");
  const { dailyOf } = await import("/js/daily_attempts.js");
  const c = window.solrace.conn;
  const closes = dailyClosesAt(dailyOf(rid));
  const shift = closes - before - (Date.now() + c.offset);
  c.now = () => Date.now() + c.offset + shift;
  window.solrace.render();
  return {
    sealed: !!document.querySelector("#sealed"),
    closedWording: !!document.querySelector("#sealed-replay"),
    replay: !!document.querySelector("#to-replay"),
    left: closes - c.now(),
  };
}"""


def test_the_close_of_a_day_is_decided_by_its_date(new_page):
    """dailyClosesAt: the midnight UTC after the attempt's date; no date, no close."""
    page = new_page()
    got = page.evaluate(
        """async () => {
          const { dailyClosesAt, dailyClosed } = await import("/js/result.js");
          const closes = dailyClosesAt({ game: "fours-up", date: "2024-02-28" });
          return {
            closes,
            leap: dailyClosesAt({ game: "fours-up", date: "2024-02-29" }),
            before: dailyClosed({ game: "fours-up", date: "2024-02-28" }, closes - 1),
            at: dailyClosed({ game: "fours-up", date: "2024-02-28" }, closes),
            noDate: dailyClosed({ game: "fours-up", date: "" }, closes),
            unknown: dailyClosesAt(null),
          };
        }"""
    )
    assert got["closes"] == 1709164800000  # 2024-02-29T00:00:00Z
    assert got["leap"] == 1709251200000  # 2024-03-01T00:00:00Z
    assert (got["before"], got["at"], got["noDate"]) == (False, True, False)
    assert math.isnan(got["unknown"])


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_a_daily_result_left_open_redraws_at_the_close(new_page):
    page = new_page("nina")
    page.goto(page.url.split("#")[0] + f"#daily={GAME}")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    page.wait_for_selector("#board .pile", timeout=60000)
    page.wait_for_function("window.solrace.app.you && window.solrace.app.you.status === 'playing'")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel #sealed")
    assert page.locator("#seed").count() == 0  # the day is open: its seed is secret
    assert page.locator("#sealed-replay").count() == 0
    assert page.locator("#to-replay").count() == 0
    assert "revealed after the day closes" in page.locator("#sealed").inner_text()
    date = page.evaluate("(rid) => JSON.parse(localStorage.getItem('solrace.dailies'))[rid]", rid).split("|")[
        1
    ]

    shown = page.evaluate(CLOCK_TO_BEFORE_THE_CLOSE, [rid, 1500])
    assert shown["sealed"] and not shown["closedWording"] and not shown["replay"], shown
    assert 0 < shown["left"] <= 1500, shown

    # Nothing else happens: the close alone redraws the result.
    page.wait_for_selector("#sealed-replay")
    assert "The day is closed" in page.locator("#sealed").inner_text()
    assert page.locator("#sealed-day").get_attribute("href") == f"#daily={GAME}&date={date}"
    assert page.locator("#sealed-replay").get_attribute("href") == f"#replay={rid}"
    assert page.locator("#to-replay").count() == 1
    shot(page, "daily-result-after-the-close", full_page=True)

    # Drawn again before the close and left: the timer goes with the page.
    shown = page.evaluate(CLOCK_TO_BEFORE_THE_CLOSE, [rid, 60000])
    assert not shown["closedWording"], shown
    assert page.evaluate("window.solrace.app.dayCloseTimer") is not None
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector("#main .tile")
    assert page.evaluate("window.solrace.app.dayCloseTimer") is None
