"""An attempt's deadline is at most its day's close, even when its race is counted down long
after it was made: a start that bound its race and stopped before the countdown (a process
gone, a Redis fault) is resumed by the player's next daily_start, maybe hours later. After the
close `daily` publishes the seed: nobody may still be playing it (docs/protocol.md §5)."""

from __future__ import annotations

import pytest

from client.library import ServerError, connect
from protocol import messages as m
from server.daily import days

GAME = "racing-aces"

# They start daily attempts on the real clock (tests/conftest.py: pytest_runtest_protocol).
pytestmark = pytest.mark.daily


def stop_after_binding_once(app) -> list[str]:
    """The first daily start stops once its attempt is bound to its race, before anything
    counts it down (the process died there): the race waits in its lobby."""
    daily = app.daily
    real = daily.start
    bound: list[str] = []

    async def stopping_once(*args, **kw):
        att = await real(*args, **kw)
        bound.append(att.race)
        if len(bound) == 1:
            raise ConnectionError("the process stopped here")
        return att

    daily.start = stopping_once
    return bound


async def made_at_the_opening(app, c) -> tuple[str, int]:
    """`c`'s attempt made as if at the very instant the day opened, with a clock as long as the
    day, and left in its lobby: its race id and clock (s) (the daily's clock is real again
    afterwards). The real clock is past that instant, however soon after midnight the test runs
    (tests/conftest.py starts a `daily` test at the earliest a second past it): what is left of
    the day now is less than that clock."""
    daily = app.daily
    real_clock = daily.clock
    today = daily.today()
    daily.time_limit_s = 86_400
    calls = stop_after_binding_once(app)
    daily.clock = lambda: days.opens_at(today)
    try:
        with pytest.raises(ServerError) as e:
            await c.request(m.DailyStart(game=GAME))
        assert e.value.code == "internal"
    finally:
        daily.clock = real_clock
    (rid,) = calls
    _now, race = await app.service.store.load_race(rid)
    assert race is not None and race.status == "lobby"
    # the whole day was left when it was made (less the countdown's lead)
    assert race.time_limit_s == (days.DAY_MS - daily.start_lead_ms) // 1000
    return rid, race.time_limit_s


async def test_an_attempt_resumed_late_is_cut_to_end_by_the_close(server):
    app = server
    async with connect(app.ws_url, name="kay") as kay:
        rid, made = await made_at_the_opening(app, kay)
        closes = days.closes_at(app.daily.today())
        again = await kay.request(m.DailyStart(game=GAME), timeout=5)
        assert again.race == rid
        _now, race = await app.service.store.load_race(rid)
        assert race is not None and race.status in ("countdown", "running")
        assert race.deadline is not None and race.deadline <= closes, (race.deadline, closes)
        # cut: the clock it was made with would have run past the close (however soon after
        # the opening the test runs; an hour later, by an hour)
        assert race.time_limit_s < made and again.time_limit_s == race.time_limit_s


async def test_an_attempt_resumed_too_near_the_close_does_not_start(server):
    app = server
    async with connect(app.ws_url, name="lee") as lee:
        rid, _made = await made_at_the_opening(app, lee)
        # Now less than the shortest attempt is left before the close.
        left_s = (days.closes_at(app.daily.today()) - app.daily.clock()) // 1000
        app.daily.min_attempt_s = left_s + 60
        with pytest.raises(ServerError) as e:
            await lee.request(m.DailyStart(game=GAME), timeout=5)
        assert e.value.code == "daily-closing"
        _now, race = await app.service.store.load_race(rid)
        assert race is not None and race.status == "lobby" and race.deadline is None
