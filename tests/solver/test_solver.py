"""The full-knowledge solver: wins replay, lost proofs agree with an
independent exhaustive search, budgets hold, the position key is sound."""

from __future__ import annotations

import random
import time

import pytest
from solver_helpers import endgame, exhaustive, fours_up_foundations, won_foundations

from protocol import rules
from protocol.solver import position_key, solve

# Deals the solver wins within a small budget (found by the benchmark's seeds,
# sha256("solver-bench/i")[:32]); the budget is what the test allows.
WON_DEALS = [
    ("racing-aces", "7bbe074bf439994f8450c51b24bfc226", 2_000),
    ("racing-aces", "855c8577dfea4713126ee372a8e33ebb", 2_000),
    ("racing-aces", "0e9e795f03692c074ae56ce3a75f4e47", 2_000),
    ("rouge-et-noir", "855c8577dfea4713126ee372a8e33ebb", 2_500),
    # won by the rollout that goes first in Fours Up (deal 18 of the benchmark)
    ("fours-up", "ba2e73bf827b61fd91b35d6ce80bae03", 2_500),
]
# Double Aces and Kings deals take bigger budgets than a test should spend;
# their winning lines are checked on endgames below.

GAMES = list(rules.GAMES)


def _replay_wins(start: rules.Game, line: tuple[str, ...]) -> bool:
    g = start.copy()
    for move in line:
        assert not g.won, "the line goes on after the win"
        g.play(move)  # raises IllegalMove if the line is not legal
    return g.won


@pytest.mark.parametrize(("game", "seed", "nodes"), WON_DEALS)
def test_winning_line_of_a_deal_replays_to_a_win(game: str, seed: str, nodes: int) -> None:
    result = solve(rules.deal(game, seed), nodes=nodes)
    assert result.status == "won"
    assert result.nodes <= nodes
    assert rules.replay(game, seed, result.line).won


@pytest.mark.parametrize("game", GAMES)
def test_endgames_agree_with_exhaustive_search(game: str) -> None:
    """Random endgames (a few cards out of a won position): every win the
    solver reports replays to a win, and wherever the whole reachable space is
    small enough to list, the solver's verdict is the exhaustive one."""
    rng = random.Random(f"endgames/{game}")
    checked = wins = 0
    for _ in range(8):
        g = endgame(game, rng, rng.randint(2, 6))
        if g is None:
            continue
        before = g.to_text()
        result = solve(g, nodes=20_000)
        assert g.to_text() == before, "solve must not change its argument"
        assert result.status != "unknown"
        if result.won:
            wins += 1
            assert _replay_wins(g, result.line)
        # Racing Aces and Double Aces and Kings shuffle foundation tops among
        # sixteen piles and free cells: their spaces are too big to list.
        truth = exhaustive(g, limit=1_000) if game in ("rouge-et-noir", "fours-up") else None
        if truth is not None:
            checked += 1
            assert result.won == truth
    assert wins >= 4
    if game in ("rouge-et-noir", "fours-up"):
        assert checked >= 1


# Lost endgames: every card home but a few, which block each other (a card
# needed first lies under one that needs it), and no free pile to sort them.
LOST = {
    "fours-up": (
        "fours-up "
        + fours_up_foundations("KAA3KA33")
        + " t0:2c t1:2c t2:3c t3:3c t4:3d t5:3d s: w:AcAc2d2h2d3h"
    ),
    "double-aces-and-kings": (
        "double-aces-and-kings "
        + won_foundations("double-aces-and-kings", f0=1)
        + " r0:2c3c r1:Kc r2:Qc r3: t0:4c t1:5c t2:6c t3:7c t4:8c t5:9c t6:Jc t7:Tc s: w:"
    ),
    "racing-aces": (
        "racing-aces "
        + won_foundations("racing-aces", f0=1)
        + " r0:2c3c r1:TcJc r2:QcKc t0:4c t1:5c t2:6c t3:7c t4:8c t5:9c s: w:"
    ),
}


@pytest.mark.parametrize("game", sorted(LOST))
def test_lost_endgames_are_proved_lost(game: str) -> None:
    g = rules.from_text(LOST[game])
    assert exhaustive(g) is False
    result = solve(g, nodes=20_000)
    assert result.status == "lost"
    assert result.line == ()


def test_rouge_et_noir_lost_endgame() -> None:
    """A run K..2 that can never take its ace: both red aces (and the 2h the
    red foundation needs next) lie face down under it, and no pile is free to
    move the run to."""
    f0 = "Ac2s3c4s5c6s7c8s9cTsJcQsKc"
    f2 = "As2c3s4c5s6c7s8c9sTcJsQcKs"
    f3 = "Ah2d3h4d5h6d7h8d9hTdJhQdKh"
    f4, f5, f6 = "KcQhJcTh9c8h7c6h5c4h3c2hAc", "KsQdJsTd9s8d7s6d5s4d3s2dAs", "KhQcJhTc9h8c7h6c5h4c3h2cAh"
    reds = ["3d", "4h", "5d", "6h", "7d", "8h", "9d", "Th", "Jd", "Qh", "Kd"]
    tab = {f"t{i}": reds[i - 1] for i in range(1, 10)}
    tab["t1"] = "~" + reds[9] + reds[0]
    tab["t2"] = "~" + reds[10] + reds[1]
    text = (
        f"rouge-et-noir f0:{f0} f1: f2:{f2} f3:{f3} f4:{f4} f5:{f5} f6:{f6} f7: "
        + "t0:~2h~Ad~AdKdQsJdTs9d8s7d6s5d4s3d2s "
        + " ".join(f"t{i}:{tab[f't{i}']}" for i in range(1, 10))
        + " s:"
    )
    g = rules.from_text(text)
    assert exhaustive(g) is False
    assert solve(g, nodes=20_000).status == "lost"


@pytest.mark.parametrize("game", GAMES)
def test_node_budget_is_respected(game: str) -> None:
    g = rules.deal(game, "budget")
    result = solve(g, nodes=50)
    assert result.status in ("unknown", "won")
    assert result.nodes <= 50


def test_time_budget_is_respected() -> None:
    g = rules.deal("fours-up", "time budget")
    t0 = time.perf_counter()
    result = solve(g, nodes=10**9, seconds=0.2)
    elapsed = time.perf_counter() - t0
    assert result.status == "unknown"
    # The clock is read every 256 positions: a little over is expected, on a
    # loaded machine a little more.
    assert elapsed < 5


def test_deterministic_under_a_node_budget() -> None:
    g = rules.deal("rouge-et-noir", "same")
    a, b = solve(g, nodes=500), solve(g, nodes=500)
    assert (a.status, a.line, a.nodes) == (b.status, b.line, b.nodes)


def test_position_key_identifies_renamed_free_cells_only() -> None:
    g = rules.deal("double-aces-and-kings", "key")
    swapped = g.copy()
    t0, t1 = g.game.index["t0"], g.game.index["t1"]
    swapped.piles[t0], swapped.piles[t1] = g.piles[t1][:], g.piles[t0][:]
    assert position_key(swapped) == position_key(g)
    moved = g.copy()
    moved.play(moved.legal_moves()[0])
    assert position_key(moved) != position_key(g)
    # Rouge et Noir deals to the tableau in pile order: piles are not renamed.
    r = rules.deal("rouge-et-noir", "key")
    swapped_r = r.copy()
    a, b = r.game.index["t7"], r.game.index["t8"]
    swapped_r.piles[a], swapped_r.piles[b] = r.piles[b][:], r.piles[a][:]
    assert r.piles[a] != r.piles[b]
    assert position_key(swapped_r) != position_key(r)


def test_a_failed_rollout_leaves_the_proof_to_the_complete_search() -> None:
    """The Fours Up rollout wins nothing from a lost endgame (it proves
    nothing), the depth-first search after it does the proof, and the
    positions of both count in one budget."""
    from protocol.solver.rollout import rollout

    g = rules.from_text(LOST["fours-up"])
    line, used = rollout(g, 20_000)
    assert line is None and 0 < used < 20_000
    result = solve(g, nodes=20_000)
    assert result.status == "lost" and result.nodes >= used
    pure = solve(g, nodes=20_000, method="depth-first")
    assert pure.status == "lost" and result.nodes == pure.nodes + used


def test_the_rollout_is_deterministic_and_its_line_wins() -> None:
    from protocol.solver.rollout import rollout

    seed = "ba2e73bf827b61fd91b35d6ce80bae03"
    a, b = rollout(rules.deal("fours-up", seed), 2_500), rollout(rules.deal("fours-up", seed), 2_500)
    assert a == b and a[0] is not None
    assert rules.replay("fours-up", seed, a[0]).won
