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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from protocol.rules.engine import Game
from protocol.rules.games import GameDef, Parsed

from .inplace import movers
from .positions import _SEP, _getter, key_function, ordered_moves
from .rollout import ROLLOUT_GAMES, rollout

Status = Literal["won", "lost", "unknown"]

#: Default budget of one run: positions expanded. Where the answer stays
#: unknown that is roughly 5-10 CPU seconds (0.05-0.07 ms per position in
#: Racing Aces, Rouge et Noir and Fours Up, 0.1 ms in Double Aces and Kings;
#: both methods, on a loaded shared VM; docs/benchmarks.md "CPU per position").
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
    """The exact position (not canonical) as bytes, to keep frontier nodes small:
    the face-down counts (one byte a pile), then the piles joined by _SEP."""
    return bytes(g.down) + _SEP.join(map(bytes, g.piles))


def _unpack(game: GameDef, data: bytes) -> Game:
    n = len(game.piles)
    return Game(game, list(map(list, data[n:].split(_SEP))), list(data[:n]))


def _value(g: Game) -> int:
    """How promising a position looks: the search expands the highest first."""
    return _value_function(g.game)(g)


_VALUES: dict[str, Callable[[Game], int]] = {}


def _value_function(game: GameDef) -> Callable[[Game], int]:
    """``_value`` for positions of ``game``: 20 a card home, -1 a waste card,
    -5 a face-down card, +3 an empty tableau pile, -2 a reserve card."""
    fn = _VALUES.get(game.id)
    if fn is not None:
        return fn
    waste = game.waste_idx
    face_down = game.face_down
    tab_of = _getter(game.tab_idx)
    n_tab = len(game.tab_idx)
    reserves_of = _getter(game.reserve_idx) if game.reserve_idx else None

    def value(g: Game) -> int:
        piles = g.piles
        v = 20 * g.cards_home + 3 * (n_tab - sum(map(bool, tab_of(piles))))
        if waste is not None:
            v -= len(piles[waste])
        if face_down:
            v -= 5 * sum(g.down)
        if reserves_of is not None:
            v -= 2 * sum(map(len, reserves_of(piles)))
        return v

    fn = _VALUES[game.id] = value
    return fn


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
    key_of = key_function(gdef)
    value_of = _value_function(gdef)
    play, unplay = movers(gdef)
    cache = gdef.parse_cache
    total = gdef.total
    root_key = key_of(game.piles, game.down)
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
        piles, down = node.piles, node.down
        child_depth = neg_depth - 1
        expanded += 1
        # Each child is played on node itself, keyed, and taken back.
        for move in ordered_moves(node):
            parsed = cache[move]
            done = play(node, parsed)
            if node.cards_home == total:
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
            child_key = key_of(piles, down)
            if child_key not in parent:
                parent[child_key] = (key, move)
                counter += 1
                heapq.heappush(frontier, (-value_of(node), child_depth, counter, child_key, _pack(node)))
            unplay(node, parsed, done)
    return SolveResult("lost", (), expanded, time.perf_counter() - start)


def _depth_first(game: Game, nodes: int, seconds: float | None) -> SolveResult:
    """Depth-first, children in ``ordered_moves`` order, each position
    expanded at most once (the visited set on ``position_key``): complete,
    and cheap per position (one move played per step), so it gets through
    more positions than best-first where the first dive usually wins."""
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    if game.won:
        return SolveResult("won", (), 0, time.perf_counter() - start)
    gdef = game.game
    key_of = key_function(gdef)
    play, unplay = movers(gdef)
    cache = gdef.parse_cache
    total = gdef.total
    # One position, walked down and back up the search's path by playing
    # and taking back moves: no copies.
    g = game.copy()
    piles, down = g.piles, g.down
    visited = {key_of(piles, down)}
    # moves[i] are the moves of the i-th position on the path, cursor[i] the
    # index of the next one to try; path[i] is the move that led from the
    # i-th position to the next, undo[i] what taking it back needs.
    stack: list[list[str]] = [ordered_moves(g)]
    cursor: list[int] = [0]
    path: list[str] = []
    undo: list[tuple[Parsed, int]] = []
    expanded = 1
    while stack:
        moves = stack[-1]
        i = cursor[-1]
        if i >= len(moves):
            stack.pop()
            cursor.pop()
            if path:
                path.pop()
                unplay(g, *undo.pop())
            continue
        cursor[-1] = i + 1
        move = moves[i]
        parsed = cache[move]
        done = play(g, parsed)
        if g.cards_home == total:
            path.append(move)
            return SolveResult("won", tuple(path), expanded, time.perf_counter() - start)
        key = key_of(piles, down)
        if key in visited:
            unplay(g, parsed, done)
            continue
        visited.add(key)
        if expanded >= nodes or (
            deadline is not None and (expanded & 255) == 0 and time.perf_counter() > deadline
        ):
            return SolveResult("unknown", (), expanded, time.perf_counter() - start)
        expanded += 1
        stack.append(ordered_moves(g))
        cursor.append(0)
        path.append(move)
        undo.append((parsed, done))
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
