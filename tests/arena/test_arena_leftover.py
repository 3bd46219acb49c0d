"""Who lands in the smaller races, and who meets whom (tests/arena/leftover_sim.py, pure):
the audit's finding, measured, so that a change to pairing or scoring that moves it shows
here; and the candidate rules measured against it (docs/arenas.md, section 4)."""

from __future__ import annotations

import statistics

from leftover_sim import WINDOW, Hold, simulate


def test_every_race_is_counted_once():
    o = simulate(5, 3, races_each=30, seed=1)
    seats = sum(t.races for t in o.tallies.values())
    assert o.smaller_races() <= seats and sorted(o.final) == sorted(o.tallies)
    assert simulate(5, 3, races_each=30, seed=1) == o  # deterministic given its seed
    # each race's opponents are recorded on both sides, and a wait after every race but the last
    for p, t in o.tallies.items():
        assert len(t.met) == t.races
        assert all(p in o.opponents(q) for q in o.opponents(p))
        assert t.races - 1 <= len(t.waits) <= t.races


def test_the_candidate_framework_is_the_product_rule_without_a_hold():
    """``Hold()`` spells out the server's rule, so the candidates differ from it only by
    what they add."""
    for n, seats in ((5, 3), (7, 4), (4, 2)):
        assert simulate(n, seats, races_each=20, seed=2, pairing=Hold()) == simulate(
            n, seats, races_each=20, seed=2
        )


def test_the_smaller_race_sticks_to_the_same_players():
    """5 players, 3 seats: a race's players are freed together, and the others are rarely
    free within the longest wait, so the same players meet again in a smaller race: one
    player sits in it in most of their races while another never does. Every wait is
    within the longest wait (plus a tick)."""
    o = simulate(5, 3, races_each=100, seed=0)
    shares = sorted(o.smaller_share(p) for p in o.tallies)
    assert shares[-1] > 0.9 and shares[0] == 0.0
    assert o.waits()[2] <= WINDOW.max_wait_ms + 1_000


def test_holding_repeats_mixes_players_only_at_a_long_wait():
    """The measured candidate: a group of exactly one race's players again waits up to 20 s
    while another race runs (and the leftovers rotate). Over arenas of 15 races a player,
    fewer pairs never meet, but the smaller race still mostly falls to the same player and
    every wait grows several times over: why the server keeps the 3 s rule."""
    now, held = [], []
    for seed in range(10):
        now.append(simulate(5, 3, races_each=15, seed=seed))
        held.append(simulate(5, 3, races_each=15, seed=seed, pairing=Hold(20_000, rotate=True)))

    def mean(outcomes, f):
        return statistics.mean(f(o) for o in outcomes)

    assert mean(held, lambda o: o.never_met()) < mean(now, lambda o: o.never_met()) - 0.1
    assert mean(held, lambda o: o.shares()[1]) > 0.7
    assert mean(held, lambda o: o.waits()[0]) > 4 * mean(now, lambda o: o.waits()[0])
