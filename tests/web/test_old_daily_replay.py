"""The replay of an old daily attempt (docs/protocol.md §5): the race's own record is kept
`--finished-ttl-s`, a final day's published replays (`daily_replay`) longer. Once the
record has expired, `#replay=RACE&daily=GAME&date=DATE` replays the attempt from its
day's published replays; without the day in the route the page says no race has this id
(mistyped, or too old for its replay to be kept).

The server runs in-process on its own thread (tests/web/test_daily_return.py), so the
test moves the daily clock past the day's close and deletes the race record from Redis
(what its expiry does).
"""

from __future__ import annotations

import re

import pytest
import redis
from waiting import wait_until

from client.library import ServerError, connect
from protocol import messages as m
from server.daily import days

from . import test_daily_return
from .conftest import shot
from .test_daily_return import GAME, TOP, bot_attempt, published

# The closed-day test's fixtures: the in-process server and pages on it.
daily_server = test_daily_return.daily_server
open_page = test_daily_return.open_page

# the server's `no-such-race` is the same for an expired race and a mistyped id
NO_SUCH_RACE = "No race has this id: it may be mistyped, or too old to be kept."


def expire_race(url: str, rid: str) -> int:
    """Delete the race record `{race:RID}` and its keys (stream, players, logs): its expiry."""
    with redis.Redis.from_url(url) as r:
        found = list(r.scan_iter(match="{race:" + rid + "}*"))
        assert any(k == ("{race:" + rid + "}").encode() for k in found), found
        return r.delete(*found)


async def replay_code(url: str, rid: str) -> str | None:
    async with connect(url, name="probe") as c:
        try:
            await c.request(m.Replay(race=rid))
        except ServerError as e:
            return e.code
        return None


@pytest.mark.daily  # attempts on the real clock (tests/conftest.py)
def test_an_expired_daily_attempt_replays_from_its_day(daily_server, open_page):
    srv = daily_server
    date = days.day_of(srv.app.daily.clock())
    attempts = dict(srv.run(bot_attempt(srv.ws, f"old{i}", moves)) for i, moves in enumerate((5, 25)))
    # Midnight plus the finalization grace: the day is final and publishes its top replays.
    srv.shift_ms = days.closes_at(date) - srv.base() + srv.app.daily.finalize_grace_ms + 1000
    top = srv.run(published(srv.ws, date))
    assert top == attempts  # TOP = 2: both attempts are published
    player, rid = next(iter(top.items()))
    assert srv.run(replay_code(srv.ws, rid)) is None  # the record is still there
    expire_race(srv.app.settings.redis, rid)
    assert srv.run(replay_code(srv.ws, rid)) == "no-such-race"

    # with the day in the route: replayed from the day's published replays
    page = open_page("vera")
    page.goto(srv.http + f"#replay={rid}&daily={GAME}&date={date}")
    page.wait_for_selector("#replay-page .replay-player .pile")
    page.wait_for_selector("#replay-from-daily")
    page.wait_for_selector("#replay-verify .verify.ok")
    assert "every board" in page.locator("#replay-check").inner_text()
    assert page.locator(".replay-player").count() == 1
    assert page.locator(".replay-player").get_attribute("data-player") == player
    assert page.locator("#replay-from-daily a").get_attribute("href") == f"#daily={GAME}&date={date}"
    assert page.locator("#replay-analyze").count() == 0  # the solver needs the race record
    moves = page.evaluate("window.solrace.replayPage.data.events.length")
    assert moves > 0
    page.click("#replay-last")
    page.wait_for_url(re.compile(rf"#replay={rid}&step={moves}&daily={GAME}&date={date}$"))
    assert page.locator("#replay-pos").inner_text().startswith(f"move {moves}/{moves}")
    shot(page, "old-daily-replay", full_page=True)

    # the same link reopened keeps its day and its step
    page.goto(srv.http + "#/")
    page.wait_for_selector("#main .tile")
    page.goto(srv.http + f"#replay={rid}&step=1&daily={GAME}&date={date}")
    page.wait_for_selector("#replay-from-daily")
    wait_until(lambda: page.locator("#replay-pos").inner_text().startswith(f"move 1/{moves}"))

    # without the day in the route: a clear word, no replay
    plain = open_page("walt")
    plain.goto(srv.http + f"#replay={rid}")
    plain.wait_for_selector("#replay-error")
    assert plain.locator("#replay-error").inner_text() == NO_SUCH_RACE
    assert plain.locator("#replay-page").count() == 0
    shot(plain, "old-race-replay-too-old")


@pytest.mark.daily
def test_an_expired_attempt_outside_the_published_top(daily_server, open_page):
    """The day in the route, but the attempt is not among the published replays: too old."""
    srv = daily_server
    date = days.day_of(srv.app.daily.clock())
    attempts = dict(srv.run(bot_attempt(srv.ws, f"many{i}", moves)) for i, moves in enumerate((2, 10, 30)))
    srv.shift_ms = days.closes_at(date) - srv.base() + srv.app.daily.finalize_grace_ms + 1000
    top = srv.run(published(srv.ws, date))
    assert len(top) == TOP
    (player,) = set(attempts) - set(top)
    rid = attempts[player]
    expire_race(srv.app.settings.redis, rid)
    page = open_page("una")
    page.goto(srv.http + f"#replay={rid}&daily={GAME}&date={date}")
    page.wait_for_selector("#replay-error")
    assert page.locator("#replay-error").inner_text() == NO_SUCH_RACE
    assert page.locator("#replay-day").get_attribute("href") == f"#daily={GAME}&date={date}"
