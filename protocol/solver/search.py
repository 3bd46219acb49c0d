"""The full-knowledge solver: is a won position reachable from this one?

The solver sees the whole deal (the stock's order, face-down cards), as the
server does. With everything known a patience game is a one-player
deterministic game, so "can this deal still be won" is plain reachability in
the graph of positions: a depth-first search with a set of visited positions
answers it exactly. If the search finds a won position, the path to it is a
winning line; if it exhausts every reachable position without one, the
position is proved lost; if the node or time budget runs out first, the
answer is unknown.

Two things make the search small enough to be useful (protocol/solver/positions.py):
a canonical position key (``position_key``: positions the rules cannot tell
apart share one, so the visited set cuts them all at once) and move ordering
and pruning (``ordered_moves``). Pruning never drops a move that could be the
only way to a win; ordering only changes which win is found first and how fast.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Literal

from protocol.rules.engine import Game
from protocol.rules.games import GameDef

from .positions import ordered_moves, position_key
from .rollout import ROLLOUT_GAMES, rollout

Status = Literal["won", "lost", "unknown"]

#: Default budget of one run: positions expanded. Where the answer stays
#: unknown that is roughly 10-20 CPU seconds (about 0.1 ms per position
#: depth-first, 0.13 ms best-first in Racing Aces; docs/bots.md).
DEFAULT_NODES = 100_000


@dataclass(frozen=True, slots=True)
class SolveResult:
    """What the solver found from one position.

    ``status``: "won" (``line`` is a winning line of moves in notation, legal
    one after the other from the position), "lost" (proved: no reachable
    position is won; ``line`` is empty) or "unknown" (the budget ran out).
    ``nodes`` counts positions expanded (their moves listed), ``seconds`` the
    wall time spent.
    """

    status: Status
    line: tuple[str, ...]
    nodes: int
    seconds: float

    @property
    def won(self) -> bool:
        return self.status == "won"

    @property
    def lost(self) -> bool:
        return self.status == "lost"


# -- the search -------------------------------------------------------------


def _pack(g: Game) -> bytes:
    """The exact position (not canonical) as bytes, to keep frontier nodes small."""
    out = bytearray(g.down)
    for p in g.piles:
        out.append(len(p))
        out.extend(p)
    return bytes(out)


def _unpack(game: GameDef, data: bytes) -> Game:
    n = len(game.piles)
    down = list(data[:n])
    piles = []
    i = n
    for _ in range(n):
        size = data[i]
        piles.append(list(data[i + 1 : i + 1 + size]))
        i += 1 + size
    return Game(game, piles, down)


def _value(g: Game) -> int:
    """How promising a position looks: the search expands the highest first."""
    game = g.game
    piles = g.piles
    v = 20 * g.cards_home
    if game.waste_idx is not None:
        v -= len(piles[game.waste_idx])
    if game.face_down:
        v -= 5 * sum(g.down)
    for i in game.tab_idx:
        if not piles[i]:
            v += 3
    for i in game.reserve_idx:
        v -= 2 * len(piles[i])
    return v


def _best_first(game: Game, nodes: int, seconds: float | None) -> SolveResult:
    """Best-first: the position with the highest ``_value`` (ties: the deepest,
    then the first reached) is expanded next; every position is expanded at
    most once (the visited set on ``position_key``). That is complete: when
    no unexpanded position is left, no reachable position is won. ``nodes``
    bounds the positions expanded; ``seconds`` (optional) bounds the wall
    time. Deterministic: with a node budget only, the same position always
    gives the same result.
    """
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    if game.won:
        return SolveResult("won", (), 0, time.perf_counter() - start)
    gdef = game.game
    root_key = position_key(game)
    # key -> (parent key, move from the parent's stored position)
    parent: dict[bytes, tuple[bytes, str] | None] = {root_key: None}
    counter = 0
    frontier: list[tuple[int, int, int, bytes, bytes]] = [(0, 0, 0, root_key, _pack(game))]
    expanded = 0
    while frontier:
        if expanded >= nodes or (
            deadline is not None and (expanded & 255) == 0 and time.perf_counter() > deadline
        ):
            return SolveResult("unknown", (), expanded, time.perf_counter() - start)
        _, neg_depth, _, key, packed = heapq.heappop(frontier)
        node = _unpack(gdef, packed)
        expanded += 1
        for move in ordered_moves(node):
            child = node.copy()
            child._play(move)
            if child.won:
                line = [move]
                at: bytes | None = key
                while at is not None:
                    link = parent[at]
                    if link is None:
                        break
                    at, m = link
                    line.append(m)
                line.reverse()
                return SolveResult("won", tuple(line), expanded, time.perf_counter() - start)
            child_key = position_key(child)
            if child_key in parent:
                continue
            parent[child_key] = (key, move)
            counter += 1
            heapq.heappush(frontier, (-_value(child), neg_depth - 1, counter, child_key, _pack(child)))
    return SolveResult("lost", (), expanded, time.perf_counter() - start)


def _depth_first(game: Game, nodes: int, seconds: float | None) -> SolveResult:
    """Depth-first, children in ``ordered_moves`` order, each position
    expanded at most once (the visited set on ``position_key``): complete,
    and cheap per position (one child made per step), so it gets through
    more positions than best-first where the first dive usually wins."""
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    if game.won:
        return SolveResult("won", (), 0, time.perf_counter() - start)
    root = game.copy()
    visited = {position_key(root)}
    # stack[i] is (position, its moves, index of the next one to try);
    # path[i] is the move that led from stack[i] to stack[i + 1].
    stack: list[tuple[Game, list[str]]] = [(root, ordered_moves(root))]
    cursor: list[int] = [0]
    path: list[str] = []
    expanded = 1
    while stack:
        node, moves = stack[-1]
        i = cursor[-1]
        if i >= len(moves):
            stack.pop()
            cursor.pop()
            if path:
                path.pop()
            continue
        cursor[-1] = i + 1
        move = moves[i]
        child = node.copy()
        child._play(move)
        if child.won:
            path.append(move)
            return SolveResult("won", tuple(path), expanded, time.perf_counter() - start)
        key = position_key(child)
        if key in visited:
            continue
        visited.add(key)
        if expanded >= nodes or (
            deadline is not None and (expanded & 255) == 0 and time.perf_counter() > deadline
        ):
            return SolveResult("unknown", (), expanded, time.perf_counter() - start)
        expanded += 1
        stack.append((child, ordered_moves(child)))
        cursor.append(0)
        path.append(move)
    return SolveResult("lost", (), expanded, time.perf_counter() - start)


Method = Literal["best-first", "depth-first"]

#: The method that found the most wins per node in a budget, per game
#: (measured on a few dozen deals each; see docs/bots.md).
METHOD: dict[str, Method] = {
    "racing-aces": "best-first",
    "double-aces-and-kings": "depth-first",
    "rouge-et-noir": "depth-first",
    "fours-up": "depth-first",
}


def solve(
    game: Game, *, nodes: int = DEFAULT_NODES, seconds: float | None = None, method: Method | None = None
) -> SolveResult:
    """Search from ``game`` (not changed) for a won position.

    ``nodes`` bounds the positions expanded; ``seconds`` (optional) bounds
    the wall time. ``method`` defaults to the game's entry in ``METHOD``;
    both methods are complete, so "lost" is a proof either way.
    In the games of ``rollout.ROLLOUT_GAMES`` (Fours Up) a greedy rollout
    that knows the deal goes first; its positions count in the budget, and
    the complete search gets the rest. Deterministic: with a node budget
    only, the same position always gives the same result.
    """
    chosen = method or METHOD[game.game_id]
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    used = 0
    if method is None and game.game_id in ROLLOUT_GAMES and not game.won:
        line, used = rollout(game, nodes, deadline)
        if line is not None:
            return SolveResult("won", line, used, time.perf_counter() - start)
        if used >= nodes or (deadline is not None and time.perf_counter() > deadline):
            return SolveResult("unknown", (), used, time.perf_counter() - start)
    left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
    if chosen == "best-first":
        result = _best_first(game, nodes - used, left)
    else:
        result = _depth_first(game, nodes - used, left)
    if not used:
        return result
    return SolveResult(result.status, result.line, result.nodes + used, time.perf_counter() - start)
