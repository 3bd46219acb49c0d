"""The pure parts of the daily challenge: days, seeds, ranking packing, streaks."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from depth import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import ranking
from protocol.ranking import MAX_MOVES, MAX_T, Result, pack, ranking_key, unpack
from server.daily import days, fair, history

D = days.DAY_MS
T0 = days.opens_at("2025-03-14")


# --- days -------------------------------------------------------------------------


def test_day_boundaries_are_half_open_utc_midnights():
    assert T0 == 1741910400000  # 2025-03-14T00:00:00Z
    assert days.day_of(T0) == "2025-03-14"
    assert days.day_of(T0 - 1) == "2025-03-13"
    assert days.day_of(T0 + D - 1) == "2025-03-14"
    assert days.day_of(T0 + D) == "2025-03-15"
    assert days.closes_at("2025-03-14") == T0 + D == days.opens_at("2025-03-15")
    assert days.is_open("2025-03-14", T0) and days.is_open("2025-03-14", T0 + D - 1)
    assert not days.is_open("2025-03-14", T0 + D) and days.is_closed("2025-03-14", T0 + D)
    assert days.date_of_day(days.day_number("2024-02-29")) == "2024-02-29"


@pytest.mark.parametrize("bad", ["2025-3-14", "2025-02-30", "20250314", " 2025-03-14", "", None])
def test_bad_dates_are_refused(bad):
    with pytest.raises(ValueError):
        days.day_number(bad)


# --- seeds ----------------------------------------------------------------------------


def test_seed_is_hmac_of_the_documented_message():
    secret = "s3cret"
    expected = hmac.new(b"s3cret", b"racing-aces|2025-03-14", hashlib.sha256).hexdigest()
    assert fair.daily_message("racing-aces", "2025-03-14") == b"racing-aces|2025-03-14"
    seed = fair.daily_seed(secret, "racing-aces", "2025-03-14")
    assert seed == expected and len(seed) == 64
    assert fair.seed_commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
    # Every game and day gets its own seed; another secret gives other seeds.
    assert seed != fair.daily_seed(secret, "fours-up", "2025-03-14")
    assert seed != fair.daily_seed(secret, "racing-aces", "2025-03-15")
    assert seed != fair.daily_seed("other", "racing-aces", "2025-03-14")


def test_seed_refuses_bad_input():
    with pytest.raises(ValueError):
        fair.daily_seed("", "racing-aces", "2025-03-14")
    with pytest.raises(ValueError):
        fair.daily_seed("x", "a|b", "2025-03-14")
    with pytest.raises(ValueError):
        fair.daily_seed("x", "racing-aces", "14/03/2025")
    assert len(fair.new_secret()) == 64


# --- ranking packing ------------------------------------------------------------------

TOTAL = 208


def res(home, *, t=None, at=None, moves=0, total=TOTAL):
    won = home == total
    return Result("won" if won else "finished", won, home, total, moves, t if won else None, t if won else at)


def test_examples_in_ranking_order():
    ordered = [
        res(TOTAL, t=60_000, moves=900),
        res(TOTAL, t=61_000, moves=10),  # slower winner, fewer moves: still after
        res(207, at=5_000, moves=1),  # a non-winner never beats a winner
        res(100, at=1_000, moves=51),
        res(100, at=1_000, moves=50),  # same count, same time: more moves first
        res(100, at=2_000, moves=1),
        res(8, at=0, moves=40),  # nothing brought home beyond the deal: played...
        res(8, at=0, moves=0),  # ...above doing nothing (Fours Up's 4s are dealt home)
        res(0, at=0, moves=0),
        res(0, at=None, moves=0),  # unknown home_at counts as latest
    ]
    scores = [pack(r) for r in ordered]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)
    # Winners with the same time tie whatever their moves (as in a race).
    assert pack(res(TOTAL, t=60_000, moves=1)) == pack(res(TOTAL, t=60_000, moves=900))


def test_scores_are_exact_doubles_and_unpack():
    r = res(5, at=MAX_T, moves=MAX_MOVES)
    s = pack(r)
    assert s <= ranking.MAX_SCORE == 2**53 - 1
    assert float(s) == s and int(float(s)) == s
    assert unpack(float(s)) == (TOTAL - 5, MAX_T, 0)  # the moves field holds MAX_MOVES - moves
    assert unpack(pack(res(5, at=7, moves=3))) == (TOTAL - 5, 7, MAX_MOVES - 3)
    assert unpack(pack(res(TOTAL, t=1234, moves=7))) == (0, 1234, 0)
    with pytest.raises(ValueError):
        unpack(2.0**53)
    with pytest.raises(ValueError):
        unpack(1.5)


def test_out_of_range_fields_saturate_without_overflowing():
    # A time past the field's range sorts last among equals, never spills into `missing`.
    assert pack(res(10, at=MAX_T + 10**9)) == pack(res(10, at=MAX_T)) < pack(res(9, at=0))
    assert (
        pack(res(10, at=5, moves=10**9))
        == pack(res(10, at=5, moves=MAX_MOVES))
        < pack(res(10, at=5, moves=1))
    )
    assert pack(res(10, at=5, moves=0)) < pack(res(10, at=6, moves=MAX_MOVES))


def test_result_validation():
    with pytest.raises(ValueError):
        Result("won", True, 10, TOTAL, 1, 5, 5)  # won without every card home
    with pytest.raises(ValueError):
        Result("won", True, TOTAL, TOTAL, 1, None, None)  # a win needs a time
    with pytest.raises(ValueError):
        Result("finished", False, TOTAL + 1, TOTAL, 1, None, 0)
    r = res(50, at=3, moves=9)
    assert Result.from_dict(r.to_dict()) == r
    r2 = Result("timeout", False, 50, TOTAL, 9, None, 3, last_move_ms=8)
    assert Result.from_dict(r2.to_dict()) == r2
    with pytest.raises(ValueError):
        Result("timeout", False, 50, TOTAL, 9, None, 3, last_move_ms=-1)


results = st.builds(
    lambda total, home, t, moves, none_at: res(
        min(home, total), t=t, at=None if none_at else t, moves=moves, total=total
    ),
    st.sampled_from([104, 156, 208]),
    st.integers(0, 208),
    st.integers(0, MAX_T),
    st.integers(0, MAX_MOVES),
    st.booleans(),
)


@settings(max_examples=examples(300))
@given(results, results)
def test_packing_preserves_the_ranking_order(a, b):
    if a.total != b.total:
        return
    ka, kb = ranking_key(a), ranking_key(b)
    pa, pb = pack(a), pack(b)
    assert (ka < kb) == (pa < pb)
    assert (ka == kb) == (pa == pb)


# --- streaks ----------------------------------------------------------------------------


def test_streaks():
    today = 100
    s = history.stats([], today)
    assert s == history.Stats(0, 0, 0, 0, 0, 0)
    # Played 90..92 (won 91, 92), then 97..99 (won 98, 99); today unplayed.
    played = [(90, False), (91, True), (92, True), (97, False), (98, True), (99, True)]
    s = history.stats(played, today)
    assert (s.played, s.wins) == (6, 4)
    assert (s.streak, s.best_streak) == (3, 3)  # 97..99 still alive: today is not over
    assert (s.win_streak, s.best_win_streak) == (2, 2)
    # Today played and lost: play streak grows, win streak breaks.
    s = history.stats(played + [(100, False)], today)
    assert (s.streak, s.best_streak, s.win_streak, s.best_win_streak) == (4, 4, 0, 2)
    # Today won: both grow.
    s = history.stats(played + [(100, True)], today)
    assert (s.streak, s.win_streak, s.best_win_streak) == (4, 3, 3)
    # Two days later without playing: current streaks are gone, bests remain.
    s = history.stats(played, today + 1)
    assert (s.streak, s.best_streak, s.win_streak, s.best_win_streak) == (0, 3, 0, 2)
    # Future days (a bad clock) are ignored; duplicates count once.
    s = history.stats([(99, True), (99, False), (150, True)], today)
    assert (s.played, s.wins, s.streak, s.win_streak) == (1, 1, 1, 1)
