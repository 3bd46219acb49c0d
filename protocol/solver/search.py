"""The full-knowledge solver: is a won position reachable from this one?

The solver sees the whole deal (the stock's order, face-down cards), as the
server does. With everything known a patience game is a one-player
deterministic game, so "can this deal still be won" is plain reachability in
the graph of positions: a depth-first search with a set of visited positions
answers it exactly. If the search finds a won position, the path to it is a
winning line; if it exhausts every reachable position without one, the
position is proved lost; if the node or time budget runs out first, the
answer is unknown.

Two things make the search small enough to be useful:

* **A canonical position key** (``position_key``). Positions that differ only
  by what the rules cannot tell apart share one key, so the visited set cuts
  them all at once: suits in games whose rules never look at suits, piles
  that are interchangeable (free cells, foundations of one kind), and piles
  whose contents follow from their length (a reserve or the stock only ever
  loses its top, a foundation's cards are fixed by its start and length).
  Equal keys mean the rules treat the two positions identically (the same
  moves up to renaming interchangeable piles), so one is won iff the other is.
* **Move ordering and pruning** (``_ordered_moves``). Cards home first,
  ``draw`` and rearrangements later, moves back off a foundation last.
  Moves that are provably pointless are dropped (see the comments there).

Pruning never drops a move that could be the only way to a win; ordering
only changes which win is found first and how fast.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Literal, cast

from protocol.rules.cards import RANK, RED
from protocol.rules.engine import Game
from protocol.rules.games import DRAW, GameDef, Kind

Status = Literal["won", "lost", "unknown"]

#: Default budget of one run: positions expanded. Where the answer stays
#: unknown that is roughly 10-20 CPU seconds (about 0.1 ms per position
#: depth-first, 0.13 ms best-first in Racing Aces; docs/bots.md).
DEFAULT_NODES = 100_000

#: Where ``draw`` comes in the move order (lower is earlier; see
#: ``_ordered_moves``). Fours Up tries the next card before rearranging the
#: tableau: its rearrangements are many and mostly lead to the same few
#: shapes, and drawing first makes the first dive go deeper.
DRAW_RANK = {"fours-up": 15}


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


# -- the canonical key ------------------------------------------------------

# bytes.translate tables from faces (0..51) to what the rules look at.
_RANK_OF_FACE = bytes([RANK[f] if f < 52 else 0 for f in range(256)])
_RANK_COLOUR_OF_FACE = bytes([RANK[f] * 2 + RED[f] if f < 52 else 0 for f in range(256)])
_SEP = b"\xff"


def _groups(game: GameDef) -> tuple[list[int], list[list[int]], list[int]]:
    """(piles keyed by length, groups of interchangeable piles, piles keyed as
    they are) for ``game``; see ``position_key``."""
    by_length: list[int] = [game.stock_idx, *game.reserve_idx]
    groups: list[list[int]] = []
    as_is: list[int] = []
    kinds = game.kinds
    if game.id in ("racing-aces", "double-aces-and-kings"):
        # A rank foundation's cards are start, start±1, ... (suits never
        # matter in these games), so its length is its content; foundations
        # of one (start, step) take the same cards, so they are interchangeable.
        by_start: dict[tuple[int, int], list[int]] = {}
        for i in game.found_idx:
            p = game.piles[i]
            by_start.setdefault((p.start, p.step), []).append(i)
        groups.extend(by_start.values())
        # One-card tableau piles are free cells; a Racing Aces refill goes to
        # the pile that was emptied, whichever it is, so their order is moot.
        groups.append(list(game.tab_idx))
        as_is.append(game.waste_idx)  # type: ignore[arg-type]
    elif game.id == "fours-up":
        # A foundation is a 4 and the cards of its suit above it in a fixed
        # order, so its bottom card and length are its content; all eight
        # follow one rule (an empty one takes any 4), so they are
        # interchangeable. Tableau piles take the same cards and are never
        # refilled (draw goes to the waste), so their order is moot too.
        groups.append(list(game.found_idx))
        groups.append(list(game.tab_idx))
        as_is.append(game.waste_idx)  # type: ignore[arg-type]
    else:
        # Rouge et Noir: a draw deals to the tableau piles in order, so they
        # keep their places (see position_key for the empty stock).
        as_is.extend(i for i in range(len(kinds)) if i not in by_length)
    return by_length, groups, as_is


_GROUPS: dict[str, tuple[list[int], list[list[int]], list[int]]] = {}


def position_key(g: Game) -> bytes:
    """A compact key: equal keys are positions the rules cannot tell apart.

    Only meaningful between positions of the same deal: the stock and the
    reserves are keyed by their length (they only ever lose their top card,
    so for one deal the length says which cards they hold).
    """
    game = g.game
    spec = _GROUPS.get(game.id)
    if spec is None:
        spec = _GROUPS[game.id] = _groups(game)
    by_length, groups, as_is = spec
    piles = g.piles
    parts = [bytes([len(piles[i]) for i in by_length])]
    if game.id == "rouge-et-noir":
        # Suits never matter in Rouge et Noir (colour foundations and the
        # tableau look at rank and colour only). Face-down cards are part of
        # the position: the solver knows them, and the key keeps where they lie.
        table = _RANK_COLOUR_OF_FACE
        down = g.down
        tab = []
        for i in as_is:
            p = piles[i]
            if game.kinds[i] == Kind.ALTERNATE:
                tab.append(bytes([down[i]]) + bytes(p).translate(table))
            else:
                parts.append(bytes(p).translate(table))
        if not piles[game.stock_idx]:
            # With the stock gone nothing tells tableau piles apart any more
            # (K to any empty pile, runs onto any pile by colour and rank).
            tab.sort()
        parts.extend(tab)
        return _SEP.join(parts)
    if game.id == "fours-up":
        found = sorted((piles[i][0] * 32 + len(piles[i]) if piles[i] else 0) for i in groups[0])
        parts.append(b"".join(n.to_bytes(2, "big") for n in found))
        parts.extend(sorted(bytes(piles[i]) for i in groups[1]))
        parts.append(bytes(piles[as_is[0]]))
        return _SEP.join(parts)
    # Racing Aces, Double Aces and Kings: ranks only.
    for grp in groups[:-1]:
        parts.append(bytes(sorted(len(piles[i]) for i in grp)))
    parts.append(b"".join(sorted(bytes(piles[i]).translate(_RANK_OF_FACE) for i in groups[-1])))
    parts.append(bytes(piles[as_is[0]]).translate(_RANK_OF_FACE))
    return _SEP.join(parts)


# -- move ordering and pruning ----------------------------------------------


def _ordered_moves(g: Game) -> list[str]:
    """The legal moves worth trying, most promising first.

    Dropped (provably never needed for a win):

    * A whole pile moved onto an empty pile of the same kind, in games whose
      tableau piles are interchangeable (all but Rouge et Noir with a stock,
      where a draw deals by pile order) and when the move reveals nothing (a
      Racing Aces refill comes only while the stock lasts): the position is
      the same up to renaming the two piles, which ``position_key`` already
      identifies.
    * Of several empty piles of one kind, only the first is tried as a
      destination: any move onto another one gives the same position up to
      renaming them (same exceptions as above).
    * A foundation's top moved onto another foundation of the same kind
      (Racing Aces, Double Aces and Kings, Fours Up): both accept the same
      cards, so this only swaps their lengths, a renaming.

    Not done: forcing "safe" moves home (playing a card home without trying
    the alternatives), as Klondike solvers do. Klondike's proof is that a
    card nobody needs as a target can wait on its foundation: a foundation
    there only grows, and the card's place is its own. Neither holds here.
    Per game (docs/bots.md, "Forcing cards home"):

    * Racing Aces, Double Aces and Kings: unsound. Foundations of any suit
      compete for the cards of a rank (twelve or sixteen of each) and a
      foundation's top moves on to other foundations, so a card home can
      take the slot another card needs. tests/solver/test_safe_moves.py
      has a won position of each where the waste's top card (which nothing
      is ever placed on) can go home and doing so loses: the checked win
      plays another card there first, or draws first.
    * Rouge et Noir: not proved, so not done. Every card can end on a
      colour foundation or in a sequence (two of the four cards of each
      rank and colour go each way), a colour foundation's top goes back to
      the tableau, and a card home can be the one a sequence run needed
      where it lay; a complete run sent to a sequence foundation when two
      runs of its colour pattern are there already loses outright.
    * Fours Up: not proved, so not done. The argument that would force a
      card from the waste onto its foundation breaks where a winning line
      takes the foundation's top back to the tableau (as a target, or
      parked on an empty pile) before that card moves: after the forced
      move the card must come off first, one move more, and with forced
      lines longer than the best one the search's completeness argument
      (each forced move keeps a win at most as long) fails. No position
      where forcing loses is known, but none is ruled out either.

    So moves home are tried first, never forced; a forced move that is not
    sound would make a "lost" answer wrong.

    Order: moves home (from a reserve or the waste before the tableau, where
    a card home also frees a cell), moves that turn a card up or empty a
    pile, the waste onto the tableau, other rearrangements, ``draw``, and
    last moves back off a foundation (needed rarely, e.g. to let a card of
    another rank through).
    """
    game = g.game
    piles = g.piles
    cache = game.parse_cache
    is_found = game.is_found
    kinds = game.kinds
    down = g.down
    stock_empty = not piles[game.stock_idx]
    interchangeable = game.id != "rouge-et-noir" or stock_empty
    refills = game.refill and not stock_empty
    first_empty: dict[Kind, int] = {}
    if interchangeable:
        for i in game.tab_idx:
            if not piles[i]:
                first_empty.setdefault(kinds[i], i)
    scored: list[tuple[int, int, str]] = []
    for n, move in enumerate(g.legal_moves()):
        if move == DRAW:
            scored.append((DRAW_RANK.get(game.id, 60), n, move))
            continue
        parsed = cast(tuple[int, int, int], cache[move])
        s, k, d = parsed
        src = piles[s]
        if is_found[s]:
            if is_found[d] and kinds[s] == kinds[d] and game.id != "rouge-et-noir":
                if game.piles[s].start == game.piles[d].start and game.piles[s].step == game.piles[d].step:
                    continue
            scored.append((90, n, move))
            continue
        if is_found[d]:
            scored.append((0 if not game.is_tab[s] else 5, n, move))
            continue
        if not piles[d] and interchangeable and game.is_tab[d]:
            if first_empty.get(kinds[d]) != d:
                continue
            if len(src) == k and game.is_tab[s] and kinds[s] == kinds[d] and not refills:
                continue
        if len(src) - k == down[s] and down[s]:
            scored.append((10, n, move))  # turns a face-down card up
        elif len(src) == k and game.is_tab[s]:
            scored.append((20, n, move))  # empties a pile (a refill in Racing Aces)
        elif game.waste_idx == s:
            scored.append((30, n, move))
        elif game.reserve_idx and s in game.reserve_idx:
            scored.append((25, n, move))
        else:
            scored.append((40, n, move))
    scored.sort()
    return [m for _, _, m in scored]


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
        for move in _ordered_moves(node):
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
    """Depth-first, children in ``_ordered_moves`` order, each position
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
    stack: list[tuple[Game, list[str]]] = [(root, _ordered_moves(root))]
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
        stack.append((child, _ordered_moves(child)))
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
    # (imported here: the rollout is built on this module's key and ordering)
    from .rollout import ROLLOUT_GAMES, rollout

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
