"""Arena points (placement, finish bonus, streak, berserk) and the standings order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.arena import scoring
from server.arena.scoring import Standing, after_race, order_key, pack, score_race, unpack


def row(player, *, won=False, home=10, moves=5, time_ms=None, home_at_ms=1000, total=52):
    if won:
        return {
            "player": player,
            "name": player,
            "status": "won",
            "won": True,
            "home": total,
            "moves": moves,
            "time_ms": time_ms,
            "home_at_ms": time_ms,
        }
    return {
        "player": player,
        "name": player,
        "status": "timeout",
        "won": False,
        "home": home,
        "moves": moves,
        "time_ms": None,
        "home_at_ms": home_at_ms,
    }


def pts(rows, streaks=None, berserk=()):
    return {rp.player: rp.points for rp in score_race(rows, streaks or {}, berserk)}


# --- the placement table --------------------------------------------------------------


def test_two_seats_win_and_second():
    assert pts([row("a", home=20), row("b", home=10)]) == {"a": 2, "b": 1}


def test_four_seats_table():
    rows = [row("a", home=40), row("b", home=30), row("c", home=20), row("d", home=10)]
    assert pts(rows) == {"a": 4, "b": 3, "c": 2, "d": 1}


def test_three_seats_table():
    assert pts([row("a", home=3), row("b", home=2), row("c", home=1)]) == {"a": 3, "b": 2, "c": 1}


def test_finish_bonus():
    rows = [row("a", won=True, time_ms=60_000), row("b", home=10)]
    assert pts(rows) == {"a": 3, "b": 1}
    # two finishers: the faster wins, both get the bonus
    rows = [row("a", won=True, time_ms=60_000), row("b", won=True, time_ms=50_000)]
    assert pts(rows) == {"a": 2, "b": 3}


def test_rank_comes_from_the_rule_not_from_the_rows():
    rows = [{**row("a", home=10), "rank": 1}, {**row("b", home=20), "rank": 2}]
    assert pts(rows) == {"a": 1, "b": 2}


def test_shared_rank_shares_points_and_is_no_win():
    rows = [row("a", home=20, home_at_ms=5), row("b", home=20, home_at_ms=5), row("c", home=1)]
    out = {rp.player: rp for rp in score_race(rows, {"a": 2, "b": 0})}
    assert (out["a"].rank, out["b"].rank, out["c"].rank) == (1, 1, 3)
    assert out["a"].points == 3 * 2 and out["b"].points == 3  # a was on fire
    assert not out["a"].win and not out["b"].win
    assert out["a"].streak == 0  # a shared first ends a streak


def test_absent_player_scores_nothing():
    rows = [row("a", home=4, moves=0, home_at_ms=0), row("b", home=4, moves=0, home_at_ms=0)]
    out = score_race(rows, {"a": 3})
    assert [rp.points for rp in out] == [0, 0]
    assert [rp.streak for rp in out] == [0, 0]
    # a mover beats an absentee; the absentee still gets nothing for second place
    assert pts([row("a", home=5, moves=3), row("b", home=4, moves=0, home_at_ms=0)]) == {"a": 2, "b": 0}


# --- streaks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "streak, won_deal, expected_points, expected_streak",
    [
        (0, False, 2, 1),  # first win
        (1, False, 2, 2),  # second win: not yet doubled
        (2, False, 4, 3),  # on fire: doubled
        (5, False, 4, 6),
        (2, True, 6, 3),  # on fire, finished the deal: (2 + 1) * 2
    ],
)
def test_streak_table(streak, won_deal, expected_points, expected_streak):
    winner = row("a", won=True, time_ms=1000) if won_deal else row("a", home=30)
    out = {rp.player: rp for rp in score_race([winner, row("b", home=5)], {"a": streak})}
    assert out["a"].points == expected_points
    assert out["a"].streak == expected_streak
    assert out["a"].fire == (streak >= 2)


def test_loss_on_fire_is_doubled_and_ends_the_fire():
    out = {rp.player: rp for rp in score_race([row("a", home=30), row("b", home=5)], {"b": 4})}
    assert out["b"].points == 2 and out["b"].streak == 0


def test_streak_sequence():
    streak, total = 0, 0
    for win in (True, True, True, True, False, True):
        rows = [row("me", home=30 if win else 5), row("x", home=20)]
        [me] = [rp for rp in score_race(rows, {"me": streak}) if rp.player == "me"]
        total += me.points
        streak = me.streak
    # 2 + 2 + 4 + 4 + (1 * 2) + 2
    assert total == 16 and streak == 1


# --- berserk --------------------------------------------------------------------------


def test_berserk_win_adds_one_never_doubled():
    rows = [row("a", home=30), row("b", home=5)]
    assert pts(rows, berserk={"a"}) == {"a": 3, "b": 1}
    assert pts(rows, {"a": 2}, berserk={"a"}) == {"a": 5, "b": 1}
    rows = [row("a", won=True, time_ms=9), row("b", home=5)]
    assert pts(rows, {"a": 2}, berserk={"a"}) == {"a": 7, "b": 1}


def test_berserk_loss_adds_nothing():
    assert pts([row("a", home=30), row("b", home=5)], berserk={"b"}) == {"a": 2, "b": 1}


def test_bad_rows():
    with pytest.raises(ValueError):
        score_race([row("a"), row("a")], {})


# --- standings ------------------------------------------------------------------------


def test_after_race_keeps_reached_time_when_no_points():
    s = Standing("p", "P", points=5, races=2, wins=1, streak=1, reached_ms=1000)
    [_, zero] = score_race([row("x", home=5), row("p", home=3, moves=0, home_at_ms=0)], {"p": 1})
    s2 = after_race(s, zero, 9000)
    assert (s2.points, s2.races, s2.streak, s2.reached_ms) == (5, 3, 0, 1000)


def test_standings_order_and_shared_ranks():
    a = Standing("a", "A", points=10, races=5, reached_ms=500)
    b = Standing("b", "B", points=10, races=4, reached_ms=900)  # fewer races: ahead of a
    c = Standing("c", "C", points=10, races=5, reached_ms=400)  # earlier: ahead of a
    d = Standing("d", "D", points=10, races=5, reached_ms=500)  # ties a
    e = Standing("e", "E", points=12, races=9, reached_ms=9999)
    out = scoring.standings([a, b, c, d, e])
    assert [(k, s.player) for k, s in out] == [(1, "e"), (2, "b"), (3, "c"), (4, "a"), (4, "d")]


standings_st = st.builds(
    Standing,
    player=st.text("abc", min_size=1, max_size=3),
    name=st.just("n"),
    points=st.integers(0, scoring.MAX_POINTS),
    races=st.integers(0, scoring.MAX_RACES),
    wins=st.just(0),
    streak=st.just(0),
    reached_ms=st.integers(0, scoring.MAX_REACHED),
)


@given(standings_st, standings_st)
def test_pack_orders_like_order_key(s1, s2):
    assert (pack(s1) < pack(s2)) == (order_key(s1) < order_key(s2))
    assert (pack(s1) == pack(s2)) == (order_key(s1) == order_key(s2))
    assert unpack(float(pack(s1))) == (s1.points, s1.races, s1.reached_ms)
    assert pack(s1) < 2**53


def test_pack_saturates():
    big = Standing("a", "A", points=10**9, races=10**6, reached_ms=10**12)
    assert unpack(pack(big)) == (scoring.MAX_POINTS, scoring.MAX_RACES, scoring.MAX_REACHED)


def test_points_are_never_negative_and_sum_is_bounded():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(2, 4)
        rows = [
            row(f"p{i}", home=rng.randint(0, 5), moves=rng.randint(0, 2), home_at_ms=rng.randint(0, 3))
            for i in range(n)
        ]
        out = score_race(rows, {f"p{i}": rng.randint(0, 3) for i in range(n)}, {"p0"})
        for rp in out:
            assert 0 <= rp.points <= (n + 1) * 2 + 1
        assert sum(rp.win for rp in out) <= 1
