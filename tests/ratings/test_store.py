"""Ratings against a real redis-server: rated races exactly once, histories, leaderboards."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce

from server.ratings import keys
from server.ratings.accounts_store import Accounts
from server.ratings.rating import NEW, PROVISIONAL_RACES, Entrant, RatingError
from server.ratings.store import Ratings

GAME = "fours-up"
PW = "correct horse battery"
HOUR = 3_600_000


async def claim_all(accounts: Accounts, n: int) -> list[str]:
    """``n`` guests made accounts (only accounts are rated); their player ids."""
    players = [f"p{i:04d}" for i in range(n)]
    for p in players:
        await accounts.claim(p, "n" + p, PW)
    return players


def race(players, ranks):
    return [Entrant(p, "s-" + p, rank) for p, rank in zip(players, ranks)]


@pytest.mark.parametrize("n", [2, 8])
async def test_updates_match_openskill(clock, accounts, ratings, n):
    players = await claim_all(accounts, n)
    rng = random.Random(n)
    model = PlackettLuce()
    expect = {p: model.rating() for p in players}
    for i in range(3):
        ranks = rng.sample(range(1, n + 1), n)
        out = await ratings.record_race(
            GAME, f"race{i}", race(players, ranks), ended_ms=clock.ms + i * 25 * HOUR
        )
        assert out.applied
        rated = model.rate([[expect[p]] for p in players], ranks=[float(rank) for rank in ranks])
        expect = {p: team[0] for p, team in zip(players, rated)}
        for p in players:
            got = await ratings.rating(GAME, p)
            assert got.mu == pytest.approx(expect[p].mu, abs=1e-9)
            assert got.sigma == pytest.approx(expect[p].sigma, abs=1e-9)
            assert got.races == i + 1
    profile = await ratings.ratings(players[0], [GAME, "racing-aces"])
    assert profile == {GAME: await ratings.rating(GAME, players[0]), "racing-aces": NEW}
    hist = await ratings.history(GAME, players[0])
    assert [h["race"] for h in hist] == ["race2", "race1", "race0"]
    assert hist[0]["players"] == n and hist[0]["after"]["mu"] == pytest.approx(expect[players[0]].mu)


async def test_concurrent_updates_of_one_race_apply_once(r, clock, clean_redis, accounts, ratings):
    players = await claim_all(accounts, 4)
    other = aioredis.Redis.from_url(clean_redis)
    try:
        a, b = ratings, Ratings(other, clock=clock)
        entrants = race(players, [1, 2, 3, 4])
        outs = await asyncio.gather(*(x.record_race(GAME, "r1", entrants) for x in (a, b, a, b)))
    finally:
        await other.aclose()
    assert sum(o.applied for o in outs) == 1
    assert len({json.dumps(o.to_json(), sort_keys=True) for o in outs}) == 1
    single = (await a.rating(GAME, players[0])).races
    assert single == 1
    assert await r.llen(keys.history(GAME, players[0])) == 1
    model = PlackettLuce()
    rated = model.rate([[model.rating()] for _ in players], ranks=[1, 2, 3, 4])
    assert (await a.rating(GAME, players[3])).mu == pytest.approx(rated[3][0].mu)


async def test_a_retry_after_a_crash_applies_once(accounts, ratings):
    players = await claim_all(accounts, 3)
    entrants = race(players, [1, 2, 3])
    real_apply = ratings._apply

    async def dies_before(*args, **kw):
        raise ConnectionError("process died before the update")

    ratings._apply = dies_before
    with pytest.raises(ConnectionError):
        await ratings.record_race(GAME, "r1", entrants)
    assert await ratings.rating(GAME, players[0]) == NEW

    async def dies_after(*args, **kw):
        await real_apply(*args, **kw)
        raise ConnectionError("process died before hearing the reply")

    ratings._apply = dies_after
    with pytest.raises(ConnectionError):
        await ratings.record_race(GAME, "r1", entrants)
    once = {p: await ratings.rating(GAME, p) for p in players}
    assert once[players[0]].races == 1

    ratings._apply = real_apply
    out = await ratings.record_race(GAME, "r1", entrants)
    assert not out.applied
    assert {p: await ratings.rating(GAME, p) for p in players} == once
    assert out.players[0].after == once[players[0]]


async def test_a_player_in_two_races_at_once_gets_both(accounts, ratings):
    players = await claim_all(accounts, 3)
    o1, o2 = await asyncio.gather(
        ratings.record_race(GAME, "r1", race(players[:2], [1, 2])),
        ratings.record_race(GAME, "r2", race([players[0], players[2]], [1, 2])),
    )
    assert o1.applied and o2.applied
    assert (await ratings.rating(GAME, players[0])).races == 2


async def test_rated_races_need_accounts_and_distinct_sessions(r, accounts, ratings):
    players = await claim_all(accounts, 2)
    with pytest.raises(RatingError):
        await ratings.record_race(GAME, "r1", [Entrant(players[0], "s", 1), Entrant(players[1], "s", 2)])
    with pytest.raises(RatingError):
        await ratings.record_race(GAME, "r1", race([players[0], "pguest"], [1, 2]))
    assert await r.exists(keys.race(GAME, "r1")) == 0


async def test_repeated_pairings_count_less_then_nothing(r, clock, accounts, ratings):
    a, b = await claim_all(accounts, 2)
    weights = []
    for i in range(7):
        out = await ratings.record_race(GAME, f"r{i}", race([a, b], [1, 2]), ended_ms=clock.ms + i * HOUR)
        weights.append(out.players[0].weight)
    assert weights == [1, 1, 1, 0.5, 0.25, 0, 0]
    assert (await ratings.rating(GAME, a)).races == 5
    # later, the oldest pairings have left the 24 h window: r4, r5, r6 remain (n = 3)
    out = await ratings.record_race(GAME, "later", race([a, b], [1, 2]), ended_ms=clock.ms + 27 * HOUR + 1)
    assert out.players[0].weight == 0.5


async def test_leaderboard(clock, accounts, ratings):
    players = await claim_all(accounts, 12)
    rng = random.Random(7)
    skill = {p: rng.random() for p in players}
    # 10 rounds of three 4-player races, a day apart (no pairing repeats within the window)
    for day in range(PROVISIONAL_RACES):
        order = players[:]
        rng.shuffle(order)
        for t in range(3):
            table = order[t * 4 : t * 4 + 4]
            ranks = [1 + sorted(table, key=lambda p: -skill[p]).index(p) for p in table]
            await ratings.record_race(
                GAME, f"d{day}t{t}", race(table, ranks), ended_ms=clock.ms + day * 25 * HOUR
            )
    newcomer = (await accounts.claim("pnew", "Newcomer", PW)).player
    await ratings.record_race(
        GAME, "fresh", race([newcomer, players[0]], [1, 2]), ended_ms=clock.ms + 300 * HOUR
    )
    rated = {p: await ratings.rating(GAME, p) for p in players}
    assert all(not x.provisional for x in rated.values())
    expect = sorted(players, key=lambda p: -rated[p].ordinal)
    board = await ratings.leaderboard(GAME, top=5, player=expect[7], around=2)
    assert board["count"] == 12
    assert [e["player"] for e in board["top"]] == expect[:5]
    assert [e["rank"] for e in board["top"]] == [1, 2, 3, 4, 5]
    assert board["top"][0]["name"] == "n" + expect[0]
    assert board["top"][0]["rating"] == rated[expect[0]].display
    assert board["me"]["player"] == expect[7] and board["me"]["rank"] == 8
    assert [e["player"] for e in board["around"]] == expect[5:10]
    mine = await ratings.leaderboard(GAME, player=newcomer)  # provisional: not on the board
    assert mine["me"] is None and mine["around"] == []
    bottom = await ratings.leaderboard(GAME, top=0, player=expect[11], around=2)
    assert [e["player"] for e in bottom["around"]] == expect[9:]
