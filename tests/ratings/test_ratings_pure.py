"""The pure parts of ratings: account rules, login buckets, rating updates, matchmaking."""

from __future__ import annotations

import math
import random

import pytest
from argon2 import PasswordHasher
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from server.ratings import accounts as acc
from server.ratings import matchmaking as mm
from server.ratings import rating as rt

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)

# --- names and passwords ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ada", "Ada_Lovelace", "x-1", "7up", "a" * 20])
def test_good_names(name):
    assert acc.name_problem(name) is None
    assert acc.check_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "ab", "a" * 21, "_ada", "-ada", "ada lovelace", "adá", "аda", "a.b", "Admin", "bot-7", "GUEST"],
)
def test_bad_names(name):
    assert acc.name_problem(name) is not None
    with pytest.raises(acc.AccountError) as e:
        acc.check_name(name)
    assert e.value.code == "bad-name"


def test_name_key_is_case_insensitive():
    assert acc.name_key("Ada") == acc.name_key("ADA") == acc.name_key("ada") == "ada"


@pytest.mark.parametrize(
    "password, ok", [("correct horse", True), ("short", False), (" " * 12, False), ("AdaLovelace", False)]
)
def test_password_rules(password, ok):
    assert (acc.password_problem(password, "adalovelace") is None) is ok


def test_argon2id_hash_and_verify():
    encoded = acc.hash_password("correct horse", FAST_HASHER)
    assert encoded.startswith("$argon2id$")
    assert "correct horse" not in encoded
    assert acc.verify_password(encoded, "correct horse", FAST_HASHER)
    assert not acc.verify_password(encoded, "correct horsE", FAST_HASHER)
    assert not acc.verify_password("not a hash", "correct horse", FAST_HASHER)
    assert acc.hash_password("correct horse", FAST_HASHER) != encoded  # fresh salt
    assert acc.needs_rehash(encoded, acc.DEFAULT_HASHER)
    assert not acc.needs_rehash(encoded, FAST_HASHER)


# --- login buckets ------------------------------------------------------------------------

POLICY = acc.LoginPolicy(capacity=3, refill_ms=1000)


def test_bucket_allows_capacity_then_refuses_until_refill():
    b = None
    for _ in range(3):
        d = acc.take(b, 0, POLICY)
        assert d.allowed
        b = d.bucket
    d = acc.take(b, 0, POLICY)
    assert not d.allowed and d.retry_after_ms == 1000
    d = acc.take(b, 400, POLICY)
    assert not d.allowed and d.retry_after_ms == 600
    d = acc.take(b, 1000, POLICY)
    assert d.allowed and d.bucket.tokens == pytest.approx(0.0)


def test_bucket_refund_reset_and_encoding():
    d = acc.take(None, 0, POLICY)
    assert acc.refund(d.bucket, 0, POLICY).tokens == 3.0
    assert acc.refund(None, 0, POLICY).tokens == 3.0  # never above capacity
    assert acc.reset(5, POLICY) == acc.Bucket(3.0, 5)
    b = acc.Bucket(1.25, 1234)
    assert acc.Bucket.decode(b.encode()) == b


@given(st.lists(st.integers(min_value=0, max_value=5000), max_size=60))
def test_bucket_never_allows_more_than_capacity_plus_refill(gaps):
    b, now, allowed = None, 0, 0
    for g in gaps:
        now += g
        d = acc.take(b, now, POLICY)
        b = d.bucket
        allowed += d.allowed
        assert 0.0 <= b.tokens <= POLICY.capacity
    assert allowed <= POLICY.capacity + now // POLICY.refill_ms


# --- ratings ------------------------------------------------------------------------------


def entrants(ranks):
    return [rt.Entrant(f"p{i}", f"s{i}", r) for i, r in enumerate(ranks)]


def test_display_and_provisional():
    assert rt.NEW.display == 1000 and rt.NEW.provisional
    assert rt.Rating(30.0, 2.0, 10).display == 1000 + 40 * 24
    assert not rt.Rating(30.0, 2.0, 10).provisional
    assert rt.display(0.0, 8.0) == 40 and rt.display(0.0, 9.0) == 0


@pytest.mark.parametrize("ranks", [[1, 2], [2, 1], [1, 2, 3, 4, 5, 6, 7, 8], [3, 1, 6, 4, 8, 7, 5, 2]])
def test_update_is_openskills_own(ranks):
    es = entrants(ranks)
    rng = random.Random(len(ranks) * 31 + ranks[0])
    before = {e.player: rt.Rating(rng.uniform(15, 35), rng.uniform(1, 8.3), 3) for e in es}
    after = rt.rate_race(es, before)
    model = PlackettLuce()
    teams = [[model.rating(mu=before[e.player].mu, sigma=before[e.player].sigma)] for e in es]
    expect = model.rate(teams, ranks=ranks)
    for e, team in zip(es, expect):
        assert after[e.player].mu == pytest.approx(team[0].mu, abs=1e-12)
        assert after[e.player].sigma == pytest.approx(team[0].sigma, abs=1e-12)
        assert after[e.player].races == 4


def test_a_tie_is_the_mean_of_openskills_updates_over_its_orders():
    es = entrants([2, 1, 2])
    before = {"p0": rt.Rating(24.0, 5.0), "p1": rt.Rating(26.0, 4.0), "p2": rt.Rating(20.0, 7.0)}
    model = PlackettLuce()
    teams = [[model.rating(mu=before[e.player].mu, sigma=before[e.player].sigma)] for e in es]
    a = model.rate(teams, ranks=[2, 1, 3])
    b = model.rate(teams, ranks=[3, 1, 2])
    after = rt.rate_race(es, before)
    for i, e in enumerate(es):
        assert after[e.player].mu == pytest.approx((a[i][0].mu + b[i][0].mu) / 2, abs=1e-12)
        assert after[e.player].sigma == pytest.approx((a[i][0].sigma + b[i][0].sigma) / 2, abs=1e-12)


@given(st.lists(st.integers(1, 8), min_size=2, max_size=8))
def test_with_equal_ratings_a_better_rank_never_gains_less(ranks):
    after = rt.rate_race(entrants(ranks), {})
    for i, ri in enumerate(ranks):
        for j, rj in enumerate(ranks):
            if ri < rj:
                assert after[f"p{i}"].mu >= after[f"p{j}"].mu - 1e-9
            elif ri == rj:
                assert after[f"p{i}"].mu == pytest.approx(after[f"p{j}"].mu, abs=1e-9)


def test_ties_share_the_update():
    after = rt.rate_race(entrants([1, 1]), {})
    assert after["p0"].mu == pytest.approx(after["p1"].mu) == pytest.approx(rt.NEW.mu)
    assert after["p0"].sigma < rt.NEW.sigma
    after = rt.rate_race(entrants([2, 1]), {})
    assert after["p1"].mu > rt.NEW.mu > after["p0"].mu


def test_entrants_must_be_distinct_accounts_and_sessions():
    with pytest.raises(rt.RatingError):
        rt.rate_race(entrants([1]), {})
    with pytest.raises(rt.RatingError):
        rt.rate_race(entrants(range(1, 10)), {})
    with pytest.raises(rt.RatingError):
        rt.rate_race([rt.Entrant("a", "s1", 1), rt.Entrant("a", "s2", 2)], {})
    with pytest.raises(rt.RatingError):
        rt.rate_race([rt.Entrant("a", "s1", 1), rt.Entrant("b", "s1", 2)], {})


def test_pair_weight_curve():
    assert [rt.pair_weight(n) for n in range(7)] == [1, 1, 1, 0.5, 0.25, 0, 0]


def test_fairness_weights_count_only_the_window():
    h = 3600_000
    now = 100 * h
    duels = [
        (now - 25 * h, 1.0),
        (now - 2 * h, 1.0),
        (now - h, 1.0),
        (now - 3, 1.0),
        (now - 2, 1.0),
        (now - 1, 1.0),
    ]
    pairs = {rt.pair_id("b", "a"): duels}
    # 5 pairings within 24 h (the one 25 h ago is out) -> 0
    w = rt.fairness_weights(["a", "b"], pairs, now)
    assert w == {"a": 0.0, "b": 0.0}
    w = rt.fairness_weights(["a", "b", "c"], pairs, now)
    assert w == {"a": 0.5, "b": 0.5, "c": 1.0}
    assert rt.fairness_weights(["a", "b"], pairs, now + 24 * h) == {"a": 1.0, "b": 1.0}


def test_big_races_count_as_a_share_of_a_pairing():
    players = [f"p{i}" for i in range(8)]
    pairings: dict[str, list[rt.Pairing]] = {}
    for k in range(14):  # 14 races of 8 = 2 pairings of each two
        assert rt.fairness_weights(players, pairings, k) == {p: 1.0 for p in players}
        pairings = rt.with_race(pairings, players, k)
    assert rt.repeats(pairings[rt.pair_id("p0", "p7")], 14) == 2.0
    pairings = rt.with_race(pairings, players, 14)
    assert rt.fairness_weights(players, pairings, 15)["p3"] == pytest.approx(2 ** -(1 / 7))
    duel = rt.with_race(pairings, ["p0", "p1"], 16)
    assert rt.repeats(duel[rt.pair_id("p0", "p1")], 16) == pytest.approx(2 + 1 / 7 + 1)


def test_a_race_rated_after_a_later_one_keeps_the_later_pairings():
    h = 3_600_000
    later = rt.with_race({}, ["a", "b"], 10 * h)  # rated first
    both = rt.with_race(later, ["a", "b"], 9 * h)  # the earlier race, rated late
    assert both[rt.pair_id("a", "b")] == [(9 * h, 1.0), (10 * h, 1.0)]
    # the window runs back from the newest pairing, not from the race rated
    old = rt.with_race({rt.pair_id("a", "b"): [(h, 1.0), (30 * h, 1.0)]}, ["a", "b"], 20 * h)
    assert old[rt.pair_id("a", "b")] == [(20 * h, 1.0), (30 * h, 1.0)]
    # this race's weight counts only what came before it
    assert rt.fairness_weights(["a", "b"], later, 9 * h) == {"a": 1.0, "b": 1.0}


def test_weighted_update_moves_a_fraction_and_zero_moves_nothing():
    es = entrants([1, 2])
    full = rt.rate_race(es, {})
    half = rt.rate_race(es, {}, {"p0": 0.5, "p1": 0.0})
    assert half["p0"].mu - rt.NEW.mu == pytest.approx((full["p0"].mu - rt.NEW.mu) / 2)
    assert half["p0"].races == 1
    assert half["p1"] == rt.NEW


# --- matchmaking --------------------------------------------------------------------------


def W(player, mu, joined=0, seats=2):
    return mm.Waiting(player, mu, joined, seats)


def test_window_curve():
    assert mm.window(0) == 1.25
    assert mm.window(10_000) == pytest.approx(2.5)
    assert mm.window(40_000) == pytest.approx(6.25)
    assert mm.window(80_000) == pytest.approx(6.25)
    assert mm.window(90_000) == math.inf


def test_close_ratings_first():
    pool = [W("a", 20.0), W("b", 30.0), W("c", 20.5), W("d", 30.4)]
    races = mm.form_races(pool, 0)
    assert sorted(sorted(w.player for w in r) for r in races) == [["a", "c"], ["b", "d"]]


def test_far_players_wait_until_the_window_has_widened():
    pool = [W("a", 20.0), W("b", 24.0)]
    assert mm.form_races(pool, 10_000) == []  # window 2.5
    assert len(mm.form_races(pool, 22_000)) == 1  # window 4.0
    pool = [W("a", 0.0), W("b", 50.0)]
    assert mm.form_races(pool, 89_999) == []
    assert len(mm.form_races(pool, 90_000)) == 1


def test_sizes_do_not_mix_and_groups_are_full():
    pool = [W(f"p{i}", 25.0 + i * 0.1, seats=4) for i in range(6)] + [W("x", 25.0, seats=2)]
    races = mm.form_races(pool, 0)
    assert len(races) == 1 and len(races[0]) == 4
    assert {w.seats for w in races[0]} == {4}


def test_longest_waiting_player_is_served_first():
    # b waited longest; a and c are both close to b, a is closer to b
    pool = [W("a", 25.0, joined=5_000), W("b", 25.2, joined=0), W("c", 25.6, joined=1_000)]
    races = mm.form_races(pool, 6_000)
    assert [sorted(w.player for w in r) for r in races] == [["a", "b"]]


@given(
    st.lists(
        st.tuples(st.floats(0, 50), st.integers(0, 200_000), st.sampled_from([2, 3, 4, 8])),
        max_size=40,
    ),
    st.integers(0, 200_000),
)
def test_formed_races_respect_the_window(entries, now):
    pool = [W(f"p{i}", mu, joined, seats) for i, (mu, joined, seats) in enumerate(entries)]
    races = mm.form_races(pool, now)
    seen = [w.player for r in races for w in r]
    assert len(seen) == len(set(seen))
    for r in races:
        assert len(r) == r[0].seats and {w.seats for w in r} == {r[0].seats}
        oldest = min(w.joined_ms for w in r)
        assert mm.spread(r) <= mm.window(now - oldest)
