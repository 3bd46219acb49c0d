"""Accounts and ratings against a real redis-server."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from openskill.models import PlackettLuce

from server.ratings import keys
from server.ratings.accounts import AccountError, LoginPolicy
from server.ratings.rating import NEW, PROVISIONAL_RACES, Entrant, RatingError
from server.ratings.store import Ratings

# Cheap argon2id parameters: the tests check behaviour, not the cost.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
GAME = "fours-up"
PW = "correct horse battery"
HOUR = 3_600_000


def store(r, clock, **kw) -> Ratings:
    return Ratings(r, clock=clock, hasher=FAST_HASHER, **kw)


async def accounts(st: Ratings, n: int) -> list[str]:
    players = [f"p{i:04d}" for i in range(n)]
    for p in players:
        await st.claim(p, "n" + p, PW)
    return players


def race(players, ranks):
    return [Entrant(p, "s-" + p, rank) for p, rank in zip(players, ranks)]


# --- accounts -------------------------------------------------------------------------------


async def test_claim_login_logout(r, clock):
    st = store(r, clock)
    first = await st.claim("pguest1", "Ada", PW)
    assert first.player == "pguest1" and first.name == "Ada"
    assert (await st.account("pguest1")).name == "Ada"
    s1 = await st.session(first.token)
    assert s1 is not None and s1.player == "pguest1" and s1.name == "Ada"

    second = await st.login("aDA", PW, "10.0.0.1")  # names are case-insensitive
    s2 = await st.session(second.token)
    assert s2.player == "pguest1" and s2.session != s1.session

    await st.logout(first.token)
    assert await st.session(first.token) is None
    assert await st.session(second.token) is not None
    third = await st.login("ada", PW, "10.0.0.2")
    await st.logout_everywhere("pguest1")
    assert await st.session(second.token) is None and await st.session(third.token) is None
    assert await st.session("pguest1.forged") is None and await st.session("garbage") is None

    # the password is nowhere in Redis in clear
    for k in await r.keys("*"):
        dump = json.dumps(
            {
                "hash": [str(x) for x in (await r.hgetall(k)).items()]
                if await r.type(k) == b"hash"
                else str(await r.dump(k))
            }
        )
        assert PW not in dump


async def test_sessions_expire(r, clock):
    st = store(r, clock, session_ttl_ms=1000)
    login = await st.claim("pguest1", "Ada", PW)
    clock.ms += 1000
    assert await st.session(login.token) is None


async def test_names_are_unique_case_insensitively_and_one_account_per_player(r, clock):
    st = store(r, clock)
    await st.claim("p1", "Ada", PW)
    with pytest.raises(AccountError) as e:
        await st.claim("p2", "ADA", PW)
    assert e.value.code == "name-taken"
    with pytest.raises(AccountError) as e:
        await st.claim("p1", "Bob", PW)
    assert e.value.code == "already-account"
    await st.claim("p2", "Bob", PW)  # the name was released again
    for bad, code in [("a b", "bad-name"), ("Admin", "bad-name")]:
        with pytest.raises(AccountError) as e:
            await st.claim("p3", bad, PW)
        assert e.value.code == code
    with pytest.raises(AccountError) as e:
        await st.claim("p3", "Cat", "short")
    assert e.value.code == "bad-password"


async def test_concurrent_claims_of_one_name_give_it_once(r, clock):
    st = store(r, clock)
    results = await asyncio.gather(*(st.claim(f"p{i}", "Ada", PW) for i in range(8)), return_exceptions=True)
    winners = [x for x in results if not isinstance(x, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(x, AccountError) and x.code == "name-taken" for x in results if x not in winners)
    assert await r.hget(keys.NAMES, "ada") == winners[0].player.encode()
    holders = [i for i in range(8) if await r.hget(keys.account(f"p{i}"), "key") == b"ada"]
    assert holders == [int(winners[0].player[1:])]


async def test_a_claim_that_died_half_way_does_not_hold_the_name(r, clock):
    st = store(r, clock)
    # reserved by a claim that died before creating the account
    await r.hset(keys.NAMES, "ada", "pdead")
    await r.hset(keys.RESERVED, "ada", clock.ms)
    with pytest.raises(AccountError) as e:  # it may still be in flight
        await st.claim("p2", "Ada", PW)
    assert e.value.code == "name-taken"
    clock.ms += 60_000
    login = await st.claim("p2", "Ada", PW)
    assert login.player == "p2"
    assert await r.hget(keys.RESERVED, "ada") is None
    assert (await st.login("ada", PW, "10.0.0.1")).player == "p2"


async def test_a_claimed_guest_keeps_its_history(r, clock):
    st = store(r, clock)
    # what the server keeps under a guest's player id stays where it is
    await r.hset("{dailyp:pguest}:fours-up", "2025-03-14", '{"rank":1}')
    login = await st.claim("pguest", "Ada", PW)
    assert login.player == "pguest"
    assert await r.hget("{dailyp:pguest}:fours-up", "2025-03-14") == b'{"rank":1}'
    again = await st.login("Ada", PW, "10.0.0.1")
    assert again.player == "pguest"


async def test_change_password_revokes_the_other_sessions(r, clock):
    st = store(r, clock)
    here = await st.claim("p1", "Ada", PW)
    there = await st.login("Ada", PW, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await st.change_password(here.token, "wrong password", "new password 1")
    assert e.value.code == "bad-login"
    await st.change_password(here.token, PW, "new password 1")
    assert await st.session(here.token) is not None
    assert await st.session(there.token) is None
    with pytest.raises(AccountError):
        await st.login("Ada", PW, "10.0.0.1")
    assert (await st.login("Ada", "new password 1", "10.0.0.1")).player == "p1"


async def test_login_rehashes_with_new_cost_parameters(r, clock):
    await store(r, clock).claim("p1", "Ada", PW)
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    st = Ratings(r, clock=clock, hasher=stronger)
    await st.login("Ada", PW, "10.0.0.1")
    assert "m=2048,t=2" in (await r.hget(keys.account("p1"), "pw")).decode()


# --- login limits ---------------------------------------------------------------------------


async def test_brute_force_on_one_account_is_limited(r, clock):
    st = store(r, clock, account_policy=LoginPolicy(5, 60_000))
    await st.claim("p1", "Ada", PW)
    codes = []
    for i in range(8):
        try:
            await st.login("Ada", f"guess {i:04d}", f"10.0.0.{i}")
            codes.append("ok")
        except AccountError as e:
            codes.append(e.code)
    assert codes == ["bad-login"] * 5 + ["login-limited"] * 3
    with pytest.raises(AccountError) as e:  # even the right password waits
        await st.login("Ada", PW, "10.0.1.1")
    assert e.value.code == "login-limited" and e.value.extra["retry_after_ms"] == 60_000
    clock.ms += 60_000
    assert (await st.login("Ada", PW, "10.0.1.1")).player == "p1"
    # a success refills the account's bucket
    for _ in range(5):
        with pytest.raises(AccountError) as e:
            await st.login("Ada", "wrong", "10.0.1.2")
        assert e.value.code == "bad-login"


async def test_concurrent_guesses_cannot_share_tokens(r, clock, clean_redis):
    st = store(r, clock, account_policy=LoginPolicy(5, 60_000))
    await st.claim("p1", "Ada", PW)
    clients = [aioredis.Redis.from_url(clean_redis) for _ in range(4)]
    try:
        stores = [store(c, clock, account_policy=LoginPolicy(5, 60_000)) for c in clients]
        results = await asyncio.gather(
            *(stores[i % 4].login("Ada", "wrong", f"10.0.0.{i}") for i in range(20)), return_exceptions=True
        )
    finally:
        for c in clients:
            await c.aclose()
    codes = sorted(x.code for x in results if isinstance(x, AccountError))
    assert codes == ["bad-login"] * 5 + ["login-limited"] * 15


async def test_one_address_guessing_many_accounts_is_limited(r, clock):
    st = store(r, clock, address_policy=LoginPolicy(10, 30_000))
    codes = []
    for i in range(12):
        try:
            await st.login(f"user{i}", "wrong password", "10.9.9.9")
        except AccountError as e:
            codes.append(e.code)
    assert codes == ["bad-login"] * 10 + ["login-limited"] * 2
    # the refused attempts did not spend the accounts' own tokens
    assert await r.get(keys.login_name("user11")) is not None
    with pytest.raises(AccountError) as e:
        await st.login("user11", "wrong password", "10.1.1.1")
    assert e.value.code == "bad-login"


# --- ratings --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 8])
async def test_updates_match_openskill(r, clock, n):
    st = store(r, clock)
    players = await accounts(st, n)
    rng = random.Random(n)
    model = PlackettLuce()
    expect = {p: model.rating() for p in players}
    for i in range(3):
        ranks = rng.sample(range(1, n + 1), n)
        out = await st.record_race(GAME, f"race{i}", race(players, ranks), ended_ms=clock.ms + i * 25 * HOUR)
        assert out.applied
        rated = model.rate([[expect[p]] for p in players], ranks=ranks)
        expect = {p: team[0] for p, team in zip(players, rated)}
        for p in players:
            got = await st.rating(GAME, p)
            assert got.mu == pytest.approx(expect[p].mu, abs=1e-9)
            assert got.sigma == pytest.approx(expect[p].sigma, abs=1e-9)
            assert got.races == i + 1
    profile = await st.ratings(players[0], [GAME, "racing-aces"])
    assert profile == {GAME: await st.rating(GAME, players[0]), "racing-aces": NEW}
    hist = await st.history(GAME, players[0])
    assert [h["race"] for h in hist] == ["race2", "race1", "race0"]
    assert hist[0]["players"] == n and hist[0]["after"]["mu"] == pytest.approx(expect[players[0]].mu)


async def test_concurrent_updates_of_one_race_apply_once(r, clock, clean_redis):
    st = store(r, clock)
    players = await accounts(st, 4)
    other = aioredis.Redis.from_url(clean_redis)
    try:
        a, b = st, store(other, clock)
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


async def test_a_retry_after_a_crash_applies_once(r, clock):
    st = store(r, clock)
    players = await accounts(st, 3)
    entrants = race(players, [1, 2, 3])
    real_apply = st._apply

    async def dies_before(*args, **kw):
        raise ConnectionError("process died before the update")

    st._apply = dies_before
    with pytest.raises(ConnectionError):
        await st.record_race(GAME, "r1", entrants)
    assert await st.rating(GAME, players[0]) == NEW

    async def dies_after(*args, **kw):
        await real_apply(*args, **kw)
        raise ConnectionError("process died before hearing the reply")

    st._apply = dies_after
    with pytest.raises(ConnectionError):
        await st.record_race(GAME, "r1", entrants)
    once = {p: await st.rating(GAME, p) for p in players}
    assert once[players[0]].races == 1

    st._apply = real_apply
    out = await st.record_race(GAME, "r1", entrants)
    assert not out.applied
    assert {p: await st.rating(GAME, p) for p in players} == once
    assert out.players[0].after == once[players[0]]


async def test_a_player_in_two_races_at_once_gets_both(r, clock):
    st = store(r, clock)
    players = await accounts(st, 3)
    o1, o2 = await asyncio.gather(
        st.record_race(GAME, "r1", race(players[:2], [1, 2])),
        st.record_race(GAME, "r2", race([players[0], players[2]], [1, 2])),
    )
    assert o1.applied and o2.applied
    assert (await st.rating(GAME, players[0])).races == 2


async def test_rated_races_need_accounts_and_distinct_sessions(r, clock):
    st = store(r, clock)
    players = await accounts(st, 2)
    with pytest.raises(RatingError):
        await st.record_race(GAME, "r1", [Entrant(players[0], "s", 1), Entrant(players[1], "s", 2)])
    with pytest.raises(RatingError):
        await st.record_race(GAME, "r1", race([players[0], "pguest"], [1, 2]))
    assert await r.exists(keys.race(GAME, "r1")) == 0


async def test_repeated_pairings_count_less_then_nothing(r, clock):
    st = store(r, clock)
    a, b = await accounts(st, 2)
    weights = []
    for i in range(7):
        out = await st.record_race(GAME, f"r{i}", race([a, b], [1, 2]), ended_ms=clock.ms + i * HOUR)
        weights.append(out.players[0].weight)
    assert weights == [1, 1, 1, 0.5, 0.25, 0, 0]
    assert (await st.rating(GAME, a)).races == 5
    # later, the oldest pairings have left the 24 h window: r4, r5, r6 remain (n = 3)
    out = await st.record_race(GAME, "later", race([a, b], [1, 2]), ended_ms=clock.ms + 27 * HOUR + 1)
    assert out.players[0].weight == 0.5


async def test_leaderboard(r, clock):
    st = store(r, clock)
    players = await accounts(st, 12)
    rng = random.Random(7)
    skill = {p: rng.random() for p in players}
    # 10 rounds of three 4-player races, a day apart (no pairing repeats within the window)
    for day in range(PROVISIONAL_RACES):
        order = players[:]
        rng.shuffle(order)
        for t in range(3):
            table = order[t * 4 : t * 4 + 4]
            ranks = [1 + sorted(table, key=lambda p: -skill[p]).index(p) for p in table]
            await st.record_race(GAME, f"d{day}t{t}", race(table, ranks), ended_ms=clock.ms + day * 25 * HOUR)
    newcomer = (await st.claim("pnew", "Newcomer", PW)).player
    await st.record_race(GAME, "fresh", race([newcomer, players[0]], [1, 2]), ended_ms=clock.ms + 300 * HOUR)
    ratings = {p: await st.rating(GAME, p) for p in players}
    assert all(not x.provisional for x in ratings.values())
    expect = sorted(players, key=lambda p: -ratings[p].ordinal)
    board = await st.leaderboard(GAME, top=5, player=expect[7], around=2)
    assert board["count"] == 12
    assert [e["player"] for e in board["top"]] == expect[:5]
    assert [e["rank"] for e in board["top"]] == [1, 2, 3, 4, 5]
    assert board["top"][0]["name"] == "n" + expect[0]
    assert board["top"][0]["rating"] == ratings[expect[0]].display
    assert board["me"]["player"] == expect[7] and board["me"]["rank"] == 8
    assert [e["player"] for e in board["around"]] == expect[5:10]
    mine = await st.leaderboard(GAME, player=newcomer)  # provisional: not on the board
    assert mine["me"] is None and mine["around"] == []
    bottom = await st.leaderboard(GAME, top=0, player=expect[11], around=2)
    assert [e["player"] for e in bottom["around"]] == expect[9:]
