"""Certified dailies: the worker finds the day's first winnable candidate ahead of
the day; the day deals it, and its proof is published with the seed after the close."""

from __future__ import annotations

import json

import pytest
from certify_settings import CERTIFY, GAME
from waiting import DEADLINE, until

from client.cli import verify
from client.library import connect
from protocol import messages as m
from protocol import rules
from protocol.solver import solve
from server.daily import days
from server.daily import keys as daily_keys
from server.daily.deals import daily_candidate
from server.daily.fair import daily_seed

# The worker (nice +10) certifies two days ahead: minutes on a machine loaded by other work.
pytestmark = pytest.mark.timeout(300)


def test_candidate_zero_is_the_ordinary_daily_seed() -> None:
    assert daily_candidate("s", GAME, "2025-03-14", 0) == daily_seed("s", GAME, "2025-03-14")
    seeds = {daily_candidate("s", GAME, "2025-03-14", k) for k in range(5)}
    assert len(seeds) == 5


@pytest.mark.daily  # the day's date is read once, on the real clock, then minutes of waits (tests/conftest.py)
async def test_a_certified_daily(make_server, r):
    app = await make_server(**CERTIFY)
    daily = app.daily
    shift = {"ms": 0}
    base = daily.clock
    daily.clock = lambda: base() + shift["ms"]
    today = daily.today()
    tomorrow = days.day_of(daily.clock() + 86_400_000)
    # The worker prepares today and tomorrow ahead of their first deal.
    for date in (today, tomorrow):

        async def certified(date: str = date) -> int:
            return await r.exists(daily_keys.certified(GAME, date))

        await until(certified, timeout=DEADLINE * 4, what=date)
    found = json.loads(await r.get(daily_keys.certified(GAME, today)))
    secret = await daily.secret()
    seed = daily_candidate(secret, GAME, today, found["k"])
    assert rules.replay(GAME, seed, found["line"]).won
    # The first candidate proved winnable at the worker's budget is the one taken.
    for k in range(found["k"]):
        earlier = daily_candidate(secret, GAME, today, k)
        assert not solve(rules.deal(GAME, earlier), nodes=CERTIFY["certify_nodes"]).won
    async with connect(app.ws_url, name="ada") as ada:
        info = await ada.request(m.Daily(game=GAME))
        assert info.certified is True and info.seed is None and info.proof is None
        assert info.commitment == rules.seed_commitment(seed)
        # The choice is pinned: a later certification cannot change the day's seed.
        await r.set(daily_keys.certified(GAME, today), json.dumps({"k": found["k"] + 1, "line": []}))
        daily._picks.clear()
        again = await ada.request(m.Daily(game=GAME))
        assert again.commitment == info.commitment
        snap = await ada.request(m.DailyStart(game=GAME))  # an attempt: the day has a replay
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        # After the close: the seed and its proof.
        shift["ms"] = days.closes_at(today) - base() + 1
        closed = await ada.request(m.Daily(game=GAME, date=today))
        assert closed.seed == seed and closed.proof == found["line"]
        assert rules.replay(GAME, closed.seed, closed.proof).won
    # `solrace verify --daily` checks the day's proof too (from its `daily` reply).
    shift["ms"] = days.closes_at(today) - base() + daily.finalize_grace_ms
    doc = await verify.fetch(app.ws_url, daily=GAME, date=today)
    assert doc["proof"] == found["line"] and doc["par"] == len(found["line"])
    report = verify.verify(doc, commitment=info.commitment)
    assert report.confirmed and any("proof wins" in line for line in report.checked), report.text()
