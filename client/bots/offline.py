"""Playing deals offline through the rules engine, for `solrace bot --stats`
and the tests. The strategy only ever gets the player's view of the game."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from protocol import rules

from .strategies import Strategy, make


def deal_seed(prefix: str, i: int) -> str:
    """The i-th deal seed of a run: 32 hex characters, like a server's seeds,
    derived from the prefix so that every run with that prefix plays the same
    deals."""
    return hashlib.sha256(f"{prefix}/{i}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Played:
    game_id: str
    seed: str
    strategy: str
    won: bool
    cards_home: int
    total: int
    moves: int
    seconds: float


def play_deal(game_id: str, seed: str, strategy: Strategy, max_moves: int = 5000) -> Played:
    """Deal ``seed`` and let ``strategy`` play it until won, declared finished,
    or ``max_moves`` (a safety net; strategies have their own caps)."""
    g = rules.deal(game_id, seed)
    strategy.new_game()
    moves = 0
    start = time.perf_counter()
    while not g.won and moves < max_moves:
        move = strategy.choose(g.view())
        if move is None:
            break
        g.play(move)
        moves += 1
    return Played(
        game_id, seed, strategy.name, g.won, g.cards_home, g.total, moves, time.perf_counter() - start
    )


def new_strategy(name: str, seed: str, **kwargs: Any) -> Strategy:
    """A strategy for one deal; ``random`` is seeded from the deal so that a
    run is reproducible."""
    if name == "random":
        kwargs.setdefault("seed", seed)
    return make(name, **kwargs)


def play_one(task: tuple[str, str, str, dict[str, Any]]) -> Played:
    """One (game, seed, strategy, options) task; module level so that a
    process pool can run it."""
    game_id, seed, name, kwargs = task
    return play_deal(game_id, seed, new_strategy(name, seed, **kwargs))
