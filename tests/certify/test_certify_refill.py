"""Which pool the solver worker fills next, and when a game's refill backs off (pure)."""

from __future__ import annotations

from server.certify.service import HOPELESS_AFTER, hopeless, refill_order


def test_the_pool_served_longest_ago_goes_first() -> None:
    games = {"racing-aces", "fours-up", "rouge-et-noir"}
    assert refill_order(games, {}) == ["fours-up", "racing-aces", "rouge-et-noir"]
    turns = {"fours-up": 3.0, "racing-aces": 1.0}
    assert refill_order(games, turns) == ["rouge-et-noir", "racing-aces", "fours-up"]


def test_a_rare_but_possible_game_keeps_its_turns() -> None:
    assert not hopeless(tried=8, certified=0)  # too early to tell
    assert not hopeless(tried=HOPELESS_AFTER * 4, certified=1)  # rare, not hopeless
    assert hopeless(tried=HOPELESS_AFTER, certified=0)
