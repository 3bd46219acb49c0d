"""The bot strategies: plain code over the rules engine, no I/O, no clocks
except the optional per-move time budget of ``search``.

Interface: a Strategy plays one game at a time. ``new_game()`` forgets the
previous game; ``choose(position)`` takes what the player sees (a ``View``, a
view text, or a ``Game`` whose ``view()`` is taken at once) and returns the
next move in docs/rules.md §1.3 notation, or None to declare the game finished. The
real Game is never kept: everything is decided on a visible game rebuilt from
the view (board.py), so a strategy cannot read hidden cards.

All three strategies remember every position they have been in and never
return to one: that rules out undoing the previous move and every longer
cycle, so a game always ends (each move either reveals a card, which happens
at most ``total`` times, or reaches a position never seen before) — and
``max_moves`` bounds it outright.
"""

from __future__ import annotations

import heapq
import itertools
import random
import time
from typing import Any

from protocol.rules.engine import Game
from protocol.rules.games import DRAW
from protocol.rules.view import View

from . import evaluate as _evaluate
from .board import Key, as_view, unseen_counts, visible_game, visible_key
from .evaluate import EVALUATE


class Strategy:
    """Base class: history bookkeeping and the move cap."""

    name = "base"

    def __init__(self, max_moves: int = 3000) -> None:
        self.max_moves = max_moves
        self.new_game()

    def new_game(self) -> None:
        self.history: set[Key] = set()
        self.moves = 0

    def choose(self, position: View | Game | str) -> str | None:
        g = visible_game(as_view(position))
        self.history.add(visible_key(g))
        if self.moves >= self.max_moves or g.won:
            return None
        move = self._choose(g)
        if move is not None:
            self.moves += 1
        return move

    def _choose(self, g: Game) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _repeats(self, g: Game, move: str) -> bool:
        """Would ``move`` lead back to a position already played? A move that
        reveals a card always leads somewhere new (the stock shrinks or a card
        turns up), so only moves that reveal nothing need the check."""
        if move == DRAW:
            return False
        child = g.copy()
        if child.apply(move).revealed:
            return False
        return visible_key(child) in self.history


class RandomStrategy(Strategy):
    """Uniform over the legal moves; stops after ``max_moves`` (default 1000)."""

    name = "random"

    def __init__(self, seed: int | str | None = None, max_moves: int = 1000) -> None:
        self.rng = random.Random(seed)
        super().__init__(max_moves)

    def _choose(self, g: Game) -> str | None:
        legal = g.legal_moves()
        return self.rng.choice(legal) if legal else None


def _parsed(g: Game, move: str) -> tuple[int, int, int]:
    """(source, cards, destination) of a move other than ``draw``."""
    parsed = g.game.parse_cache.get(move) or g.game.parse_move(move)
    if parsed == DRAW:
        raise ValueError("draw moves no cards from a pile")
    return parsed


def _signature(g: Game, i: int) -> tuple[int, int, int]:
    p = g.game.piles[i]
    return (p.kind, p.start, p.step)


class GreedyStrategy(Strategy):
    """One move ahead with fixed preferences, no lookahead.

    Best first: a card home from a reserve, the waste, then the tableau; then a
    move that reveals a card (a flip, a refill); then the waste top onto the
    tableau; then a tableau move that empties its pile. Never a move back off
    a foundation, never onto an empty pile (both only rearrange), never to a
    position seen before. ``draw`` only when none of those exists, and declare
    the game finished when the stock is empty too.
    """

    name = "greedy"

    def _score(self, g: Game, move: str) -> float:
        gdef = g.game
        s, _k, d = _parsed(g, move)
        if gdef.is_found[s]:
            return 0
        if gdef.is_found[d]:
            return 100 + (30 if s in gdef.reserve_idx else 20 if s == gdef.waste_idx else 10)
        if not g.piles[d]:
            return 0
        child = g.copy()
        if child.apply(move).revealed:
            return 50
        if s == gdef.waste_idx:
            return 15
        if gdef.is_tab[s] and not child.piles[s]:
            return 5
        return 0

    def _choose(self, g: Game) -> str | None:
        legal = g.legal_moves()
        best, best_score = None, 0.0
        for move in legal:
            if move == DRAW:
                continue
            score = self._score(g, move)
            if score > best_score and not self._repeats(g, move):
                best, best_score = move, score
        if best is not None:
            return best
        return DRAW if DRAW in legal else None


class SearchStrategy(Strategy):
    """Best-first lookahead over the moves that reveal nothing.

    From the current position it expands, best evaluation first, every
    position reachable by moves that reveal no card, with a transposition
    table (positions already reached, or played earlier in the game, are not
    expanded again), until ``nodes`` positions were generated or ``time_ms``
    ran out. A move that would reveal a card is a chance event: the search
    scores it but does not look past it (``draw`` by evaluate.DRAW_VALUE: a
    fixed cost, or the expectation over the unseen cards; a flip or refill by the board it leaves, whose
    evaluation ignores the unknown card). It then plays the first move of the
    best line found: a line of visible moves only if it ends strictly better
    than the current position, else the best chance move, else (nothing
    reveals anything and nothing improves) it declares the game finished.
    The next call searches again from the new position (replanning), which
    can only find the same line or a better one.
    """

    name = "search"

    def __init__(self, nodes: int = 600, time_ms: float | None = None, max_moves: int = 3000) -> None:
        self.nodes = nodes
        self.time_ms = time_ms
        super().__init__(max_moves)

    @staticmethod
    def _twin_empties(g: Game) -> set[int]:
        """Empty piles that are twins of an earlier empty pile (same kind and
        rule): moving there leads to the same position up to pile names, so
        only the first of each group is tried."""
        firsts: set[tuple[int, int, int]] = set()
        twins: set[int] = set()
        for i, p in enumerate(g.piles):
            if not p:
                sig = _signature(g, i)
                if sig in firsts:
                    twins.add(i)
                firsts.add(sig)
        return twins

    @staticmethod
    def _pointless(g: Game, s: int, k: int, d: int) -> bool:
        """A whole pile onto an empty pile of the same kind: a relabelling."""
        return not g.piles[d] and len(g.piles[s]) == k and _signature(g, s) == _signature(g, d)

    def _choose(self, g: Game) -> str | None:
        legal = g.legal_moves()
        if not legal:
            return None
        if legal == [DRAW]:
            return DRAW
        evaluate = EVALUATE[g.game.id]
        draw_value = _evaluate.DRAW_VALUE[g.game.id]
        # Moves that reveal nothing leave the unseen cards as they are, so one
        # count serves the whole search.
        unseen = unseen_counts(g)
        n_unseen = sum(unseen)
        deadline = None if self.time_ms is None else time.perf_counter() + self.time_ms / 1000
        root_value = evaluate(g)
        seen = set(self.history)
        order = itertools.count()  # ties: first generated first (deterministic)
        # Best candidate so far: (value, -depth, -order) -> first move.
        best_visible: tuple[tuple[float, int, int], str] | None = None
        best_chance: tuple[tuple[float, int, int], str] | None = None
        heap: list[tuple[float, int, Game, str | None, int, list[str] | None]] = [
            (-root_value, next(order), g, None, 0, legal)
        ]
        generated = 0
        while heap and generated < self.nodes:
            if deadline is not None and time.perf_counter() > deadline:
                break
            neg_value, _, node, first, depth, moves = heapq.heappop(heap)
            value = -neg_value
            if moves is None:
                moves = node.legal_moves()
            twins = self._twin_empties(node)
            for move in moves:
                head = first or move
                if move == DRAW:
                    rank = (draw_value(node, value, unseen, n_unseen), -(depth + 1), -next(order))
                    if best_chance is None or rank > best_chance[0]:
                        best_chance = (rank, head)
                    continue
                s, k, d = _parsed(node, move)
                if d in twins or self._pointless(node, s, k, d):
                    continue
                child = node.copy()
                revealed = child.apply(move).revealed
                generated += 1
                child_value = evaluate(child)
                o = next(order)
                rank = (child_value, -(depth + 1), -o)
                if revealed:
                    if best_chance is None or rank > best_chance[0]:
                        best_chance = (rank, head)
                    continue
                key = visible_key(child)
                if key in seen:
                    continue
                seen.add(key)
                if child_value > root_value and (best_visible is None or rank > best_visible[0]):
                    best_visible = (rank, head)
                if child.won:
                    continue
                heapq.heappush(heap, (-child_value, o, child, head, depth + 1, None))
        choices = [c for c in (best_visible, best_chance) if c is not None]
        if not choices:
            return None
        return max(choices)[1]


STRATEGIES: dict[str, type[Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "search": SearchStrategy,
}


def make(name: str, **kwargs: Any) -> Strategy:
    """A new strategy by name (``random``, ``greedy``, ``search``)."""
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}") from None
    return cls(**kwargs)
