"""Certified deals, par, hints and analysis over real sockets, a real Redis and a real worker process."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgspec
import pytest
from certify_settings import CERTIFY
from must import must
from waiting import DEADLINE, until

from client.cli import verify as v
from client.library import ServerError, connect
from protocol import messages as m
from protocol import rules
from protocol.solver import solve
from server.certify import keys
from server.certify.service import Certifier

GAME = "racing-aces"

# A certified deal takes the worker process a search of its own (below: up to four DEADLINEs).
pytestmark = pytest.mark.timeout(300)


async def error_of(coro) -> str:
    with pytest.raises(ServerError) as e:
        await coro
    return e.value.code


async def pool_entries(r, game: str) -> list[dict]:
    return [json.loads(x) for x in await r.lrange(keys.pool(game), 0, -1)]


async def solo(c, game: str = GAME, **create: Any) -> m.RaceSnapshot:
    snap = await c.request(m.Create(game=game, seats=1, **create))
    await c.ready(snap.race)
    await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
    return snap


async def test_the_worker_fills_the_pool_while_the_event_loop_answers(make_server, r, monkeypatch):
    # Each batch the worker is given (the dailies, then the pool), as (start, end) on this
    # event loop's clock: the server runs in this process.
    batches: list[tuple[float, float]] = []
    run = Certifier.run

    async def timed_run(self, fn, *args):
        t0 = time.monotonic()
        try:
            return await run(self, fn, *args)
        finally:
            batches.append((t0, time.monotonic()))

    monkeypatch.setattr(Certifier, "run", timed_run)
    app = await make_server(**CERTIFY)
    pongs: list[tuple[float, float]] = []
    async with connect(app.ws_url, name="ada") as ada:
        # Ping throughout the refill: the solver runs in the worker, so pongs come back
        # while the worker certifies (a batch takes seconds of CPU).
        end = time.monotonic() + DEADLINE * 4  # the daily of today and tomorrow come first
        while await r.llen(keys.pool(GAME)) < CERTIFY["certify_pool"]:
            assert time.monotonic() < end, "the pool did not fill"
            t0 = time.monotonic()
            await ada.ping()
            pongs.append((t0, time.monotonic()))
            await asyncio.sleep(0.02)
    # Pings were sent and answered while a batch was under way. A solver run on the event
    # loop would block it from a batch's start to its end: no ping could be answered in
    # between, however fast or slow the machine. (No bound on a ping's time: a loaded
    # machine may stall one for seconds; what matters is that none waits for a batch.)
    assert batches, "the worker certified no batch"
    during = [p for p in pongs if any(s < p[0] and p[1] < e for s, e in batches)]
    assert during, f"no ping answered during any of {len(batches)} batches ({len(pongs)} pings)"
    assert app.certifier is not None and app.certifier.tried[GAME] >= 1
    for entry in await pool_entries(r, GAME):
        assert rules.replay(GAME, entry["seed"], entry["line"]).won


async def test_a_winnable_race_deals_a_certified_seed_and_publishes_its_line(make_server, r):
    app = await make_server(**CERTIFY)
    # The worker process searches for a winnable deal: minutes on a machine loaded by other work.
    await until(lambda: r.llen(keys.pool(GAME)), timeout=DEADLINE * 4, what="a certified Racing Aces deal")
    pooled = {e["seed"]: e["line"] for e in await pool_entries(r, GAME)}
    async with connect(app.ws_url, name="ada") as ada:
        snap = await solo(ada, winnable=True)
        assert snap.certified is True and snap.seed is None
        await ada.request(m.Finish(race=snap.race))
        end = await ada.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        assert rules.seed_commitment(end.seed) == snap.commitment
        assert end.seed in pooled and end.proof == pooled[end.seed]
        assert end.par == len(end.proof)
        assert rules.replay(GAME, end.seed, end.proof).won
        replay = await ada.request(m.Replay(race=snap.race))
        assert replay.proof == end.proof and replay.par == end.par
        # `solrace verify` re-plays the proof; a tampered one is refuted.
        doc = msgspec.to_builtins(replay)
        report = v.verify(doc, commitment=snap.commitment)
        assert report.confirmed and any("proof wins" in c for c in report.checked), report.text()
        assert not v.verify({**doc, "proof": end.proof[:-1]}).confirmed
        assert not v.verify({**doc, "par": end.par + 1}).confirmed
        # The seed left the pool: it is never dealt again.
        assert end.seed not in {e["seed"] for e in await pool_entries(r, GAME)}

        # Analysis after the end: no move was made, so the deal itself is still winnable.
        analysis = await ada.request(m.Analysis(race=snap.race), timeout=DEADLINE * 4)
        (mine,) = analysis.players
        assert mine.verdict == "still-winnable" and rules.replay(GAME, end.seed, mine.line).won
        assert await r.get(keys.analysis(snap.race)) is not None  # cached

        # An ordinary race is not certified and publishes no proof.
        plain = await solo(ada)
        assert plain.certified is False
        await ada.request(m.Finish(race=plain.race))
        end = await ada.wait_for("end", lambda ev: ev.race == plain.race, timeout=DEADLINE)
        assert end.proof is None and end.par is None


async def test_quick_match_deals_certified_seeds_by_default(make_server, r):
    app = await make_server(**CERTIFY)
    # The worker process searches for a winnable deal: minutes on a machine loaded by other work.
    await until(lambda: r.llen(keys.pool(GAME)), timeout=DEADLINE * 4, what="a certified Racing Aces deal")
    pooled = {e["seed"] for e in await pool_entries(r, GAME)}
    async with connect(app.ws_url, name="ada") as ada, connect(app.ws_url, name="bob") as bob:
        await ada.quick(GAME)
        await bob.quick(GAME)
        snap = await ada.wait_for("race", lambda ev: ev.host == "", timeout=DEADLINE)
        assert snap.certified is True
        for c in (ada, bob):
            await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
            await c.request(m.Finish(race=snap.race))
        end = await ada.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        assert end.seed in pooled and rules.replay(GAME, end.seed, end.proof).won


async def test_an_empty_pool_falls_back_to_an_ordinary_deal_at_once(make_server):
    # No worker: nothing fills the pools; creating a race never waits on the solver.
    app = await make_server(certify_workers=0)
    async with connect(app.ws_url, name="ada") as ada, connect(app.ws_url, name="bob") as bob:
        snap = await ada.request(m.Create(game="fours-up", winnable=True), timeout=5)
        assert snap.certified is False
        await ada.quick(GAME)
        await bob.quick(GAME)
        quick = await ada.wait_for("race", lambda ev: ev.host == "", timeout=DEADLINE)
        assert quick.certified is False


async def first_hint(client, race: str) -> m.HintData:
    """A hint, asked again while the solver is busy: its request worker can starve on a
    loaded machine. The server's wait (HINT_WAIT) is below the client's, so each request
    gets an answer."""
    for _attempt in range(5):
        try:
            return await client.request(m.Hint(race=race), timeout=DEADLINE)
        except ServerError as e:
            if e.code != "solver-busy":
                raise
    raise AssertionError("the solver stayed busy through 5 hint requests")


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
async def test_hints_in_a_casual_solo_race_and_nowhere_else(make_server):
    app = await make_server(**{**CERTIFY, "hint_wait_s": DEADLINE * 2 / 3})
    async with connect(app.ws_url, name="ada") as ada, connect(app.ws_url, name="bob") as bob:
        snap = await solo(ada)
        st = await ada.request(m.Resync(race=snap.race))
        hint = await first_hint(ada, snap.race)
        assert hint.n == 0 and hint.move in st.you.legal
        ack = await ada.move(snap.race, must(hint.move))  # the hint is a legal move
        assert ack.n == 1
        # Not someone else's race.
        assert await error_of(bob.request(m.Hint(race=snap.race))) == "not-in-race"

        # Created with hints: false.
        no_hints = await solo(ada, hints=False)
        assert await error_of(ada.request(m.Hint(race=no_hints.race))) == "hints-forbidden"

        # A race of two players.
        duel = await ada.request(m.Create(game=GAME, seats=2))
        await bob.join(duel.race)
        for c in (ada, bob):
            await c.ready(duel.race)
        await ada.wait_for("start", lambda ev: ev.race == duel.race, timeout=DEADLINE)
        for c in (ada, bob):
            assert await error_of(c.request(m.Hint(race=duel.race))) == "hints-forbidden"

        # A daily attempt.
        daily = await bob.request(m.DailyStart(game=GAME))
        await bob.wait_for("start", lambda ev: ev.race == daily.race, timeout=DEADLINE)
        assert await error_of(bob.request(m.Hint(race=daily.race))) == "hints-forbidden"


# A Rouge et Noir deal the solver wins (its first line, at 2,500 positions), and a
# move that loses it: after the line's first 379 moves, t5>f2 instead of the
# line's next move leaves a position the solver proves lost (in a few positions).
LOST_GAME, LOST_SEED, LOST_AFTER, LOSING_MOVE = (
    "rouge-et-noir",
    "00000000000000000000000000000004",
    379,
    "t5>f2",
)


async def test_analysis_finds_the_move_that_lost_the_game(make_server):
    app = await make_server(**CERTIFY)
    app.service.seed_factory = lambda: LOST_SEED
    line = list(solve(rules.deal(LOST_GAME, LOST_SEED), nodes=2500).line)
    moves = line[:LOST_AFTER] + [LOSING_MOVE]
    assert line[LOST_AFTER] != LOSING_MOVE
    async with connect(app.ws_url, name="ada") as ada, connect(app.ws_url, name="bob") as bob:
        snap = await ada.request(m.Create(game=LOST_GAME, seats=1))
        # Not before the end.
        assert await error_of(ada.request(m.Analysis(race=snap.race))) == "race-not-over"
        await ada.ready(snap.race)
        await ada.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        for mv in moves:
            await ada.move(snap.race, mv)
        assert await error_of(ada.request(m.Analysis(race=snap.race))) == "race-not-over"
        await ada.request(m.Finish(race=snap.race))
        await ada.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        # Anyone who may see the race may ask (a public race: bob too), and both get one answer.
        mine, theirs = await asyncio.gather(
            ada.request(m.Analysis(race=snap.race), timeout=DEADLINE * 4),
            bob.request(m.Analysis(race=snap.race), timeout=DEADLINE * 4),
        )
    assert mine.players == theirs.players
    (a,) = mine.players
    assert a.verdict == "lost-at", a.text
    assert a.last_winnable == LOST_AFTER and a.losing_move == LOSING_MOVE
    assert a.text.startswith(f"won until move {LOST_AFTER + 1}, {LOSING_MOVE}; a winning line from there: ")
    assert rules.replay(LOST_GAME, LOST_SEED, line[:LOST_AFTER] + a.line).won


async def test_a_busy_solver_answers_solver_busy_and_the_analysis_goes_on(make_server, r):
    # No pools to fill: the request worker does only what the test gives it.
    app = await make_server(
        **{**CERTIFY, "certified_games": "none", "hint_wait_s": 0.3, "analysis_wait_s": 0.3}
    )
    assert app.certifier is not None
    async with connect(app.ws_url, name="ada") as ada:
        snap = await solo(ada)
        # The request worker is busy for a few seconds: a hint waits 0.3 s for it, then gives up.
        blocker = asyncio.ensure_future(app.certifier.ask(time.sleep, 4.0))
        with pytest.raises(ServerError) as e:
            await ada.request(m.Hint(race=snap.race), timeout=DEADLINE)
        assert e.value.code == "solver-busy" and e.value.retry_ms == 2000
        await ada.request(m.Finish(race=snap.race))
        await ada.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        assert await error_of(ada.request(m.Analysis(race=snap.race), timeout=DEADLINE)) == "solver-busy"
        assert app.metrics.errors["solver-busy"] == 2  # /metrics: solrace_errors_total{code="solver-busy"}
        # Nobody waits for it any more, but the analysis goes on once the request worker is free,
        # and the next request reads it from the cache.
        await blocker
        await until(lambda: r.get(keys.analysis(snap.race)), timeout=DEADLINE * 4, what="the analysis cached")
        analysis = await ada.request(m.Analysis(race=snap.race), timeout=DEADLINE)
        (mine,) = analysis.players
        assert mine.verdict in ("still-winnable", "never-winnable", "unknown")
