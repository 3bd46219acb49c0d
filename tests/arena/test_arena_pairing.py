"""Pairing free players: nobody twice, groups sized right, closest first, widening with wait."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.arena.pairing import Free, Window, acceptable, pair, rematch, spread

W = Window(base_window=4, widen_per_s=10.0, max_wait_ms=3_000)


@st.composite
def free_lists(draw):
    n = draw(st.integers(0, 40))
    positions = draw(st.lists(st.integers(0, 200), min_size=n, max_size=n, unique=True))
    waits = draw(st.lists(st.integers(0, 4_000), min_size=n, max_size=n))
    lasts = draw(st.lists(st.sampled_from(["", "r1", "r2", "r3"]), min_size=n, max_size=n))
    return [
        Free(f"p{i:03d}", pos, w, last)
        for i, (pos, w, last) in enumerate(zip(positions, waits, lasts, strict=True))
    ]


@settings(max_examples=300, deadline=None)
@given(free_lists(), st.integers(2, 4))
def test_pairing_properties(free, seats):
    groups = pair(free, seats, W)
    paired = [f.player for g in groups for f in g]
    # nobody twice, only free players
    assert len(paired) == len(set(paired))
    assert set(paired) <= {f.player for f in free}
    line = sorted(free, key=lambda f: (f.position, f.player))
    full = [g for g in groups if len(g) == seats]
    small = [g for g in groups if len(g) != seats]
    # groups sized right: full groups, and at most one smaller group of leftovers
    assert len(small) <= 1 and all(2 <= len(g) < seats for g in small)
    if small:
        assert groups[-1] is small[0]
        assert max(f.waited_ms for f in small[0]) >= W.max_wait_ms
        assert len(paired) == len(free)  # the leftovers were all of them
    for g in full:
        assert acceptable(g, W)
        assert not rematch(g) or max(f.waited_ms for f in g) >= W.max_wait_ms
        assert g == sorted(g, key=lambda f: (f.position, f.player))
    # closest first: replaying the choice, each group was the closest acceptable one left
    left = list(line)
    for g in full:
        candidates = [left[i : i + seats] for i in range(len(left) - seats + 1)]
        best = min(spread(c) for c in candidates if acceptable(c, W))
        assert spread(g) == best
        # consecutive among the players still unpaired: nobody in between was skipped
        i = left.index(g[0])
        assert left[i : i + seats] == g
        del left[i : i + seats]
    # maximal: nothing acceptable is left unformed
    if not small:
        assert not any(acceptable(left[i : i + seats], W) for i in range(len(left) - seats + 1))


def reference_pair(free, seats, window):
    """The rule, spelled out: repeatedly the best acceptable group of consecutive players left."""
    line = sorted(free, key=lambda f: (f.position, f.player))
    groups = []
    while True:
        candidates = [
            ((spread(g), -max(f.waited_ms for f in g), i), g)
            for i in range(len(line) - seats + 1)
            if acceptable(g := line[i : i + seats], window)
        ]
        if not candidates:
            break
        (_, _, i), g = min(candidates, key=lambda c: c[0])
        groups.append(g)
        del line[i : i + seats]
    if 2 <= len(line) < seats and max(f.waited_ms for f in line) >= window.max_wait_ms:
        groups.append(line)
    return groups


@settings(max_examples=300, deadline=None)
@given(free_lists(), st.integers(2, 4))
def test_pairing_matches_the_rule_spelled_out(free, seats):
    assert pair(free, seats, W) == reference_pair(free, seats, W)


@pytest.mark.parametrize("seats", [2, 4])
def test_a_thousand_free_players_pair_in_linear_work(monkeypatch, seats):
    """Pairing looks at a bounded number of candidate groups per player (each player starts
    one, each group taken makes at most `seats` new ones), not at every pair: counted, not
    timed (a wall-clock bound failed on a loaded machine)."""
    from server.arena import pairing

    looked = [0]
    real = pairing.acceptable

    def counting(group, window):
        looked[0] += 1
        return real(group, window)

    monkeypatch.setattr(pairing, "acceptable", counting)
    free = [Free(f"p{i:04d}", i, (i * 37) % 4_000) for i in range(1000)]
    groups = pair(free, seats, W)
    assert len(free) - seats < looked[0] <= len(free) + len(groups) * seats
    assert sum(map(len, groups)) >= 0.98 * len(free)


def test_close_standing_pairs_together():
    free = [Free("a", 0, 0), Free("b", 1, 0), Free("c", 50, 0), Free("d", 51, 0)]
    groups = pair(free, 2, W)
    assert sorted([f.player for f in g] for g in groups) == [["a", "b"], ["c", "d"]]


def test_far_apart_fresh_players_wait_then_widen():
    a, b = Free("a", 0, 0), Free("b", 30, 0)
    assert pair([a, b], 2, W) == []
    # after 2.6 s a's window is 4 + 26 = 30 positions: enough
    assert pair([Free("a", 0, 2_600), b], 2, W) == [[Free("a", 0, 2_600), b]]
    # past the longest wait anyone will do
    far = Free("z", 10_000, 0)
    assert len(pair([Free("a", 0, 3_000), far], 2, W)) == 1


def test_leftovers_race_smaller_after_the_longest_wait():
    three = [Free("a", 0, 0), Free("b", 1, 0), Free("c", 2, 0)]
    assert pair(three, 4, W) == []
    waited = [Free("a", 0, 3_000), Free("b", 1, 0), Free("c", 2, 0)]
    assert [len(g) for g in pair(waited, 4, W)] == [3]
    assert pair([Free("a", 0, 10_000)], 4, W) == []  # alone: nobody to race


def test_no_immediate_rematch_until_the_longest_wait():
    # a and b just raced each other; c and d each come from other races
    free = [Free("a", 0, 0, "r1"), Free("b", 1, 0, "r1"), Free("c", 2, 0, "r2"), Free("d", 3, 0, "r3")]
    # (a, b) is refused; (b, c) is the closest; then a and d are next to each other in what is left
    assert sorted([f.player for f in g] for g in pair(free, 2, W)) == [["a", "d"], ["b", "c"]]
    assert pair(free[:2], 2, W) == []
    waited = [Free("a", 0, 3_000, "r1"), Free("b", 1, 0, "r1")]
    assert pair(waited, 2, W) == [waited]


def test_longest_waiter_first_among_equal_spreads():
    free = [Free("a", 0, 0), Free("b", 1, 500), Free("c", 2, 2_000)]
    assert [f.player for f in pair(free, 2, W)[0]] == ["b", "c"]


def test_rejects_duplicates_and_bad_sizes():
    with pytest.raises(ValueError):
        pair([Free("a", 0, 0), Free("a", 1, 0)], 2, W)
    with pytest.raises(ValueError):
        pair([], 2, W, min_seats=3)
