"""The player-side search: the best move from what one player sees.

Unlike ``search.solve`` this never knows the stock's order or a face-down
card. It rebuilds a game from the player's ``View`` with every hidden slot
filled by the unseen cards in canonical order (a function of the view alone),
then searches only through moves that reveal nothing; a move that reveals a
card (``draw``, a Racing Aces refill, a Rouge et Noir flip) ends its line,
scored by the position it leaves, whose evaluation (``search._value``) never
reads the card turned up: it counts cards home, waste and reserve lengths,
face-down cards and empty piles. So the answer is a function of the view: two
games that look the same get the same move. It is what a hint may show.
"""

from __future__ import annotations

import heapq

from protocol import rules
from protocol.rules.cards import FACE_OF_CODE
from protocol.rules.engine import Game
from protocol.rules.facts import game_def
from protocol.rules.view import View

from .positions import ordered_moves, position_key
from .search import _value

#: Default budget: positions generated per call (a few ms to a few tens of ms).
DEFAULT_HINT_NODES = 2_000


def visible_game(view: View) -> Game:
    """A Game equal to ``view``, its hidden slots filled with the unseen cards
    in canonical order (the engine's legality never depends on them).

    The filler is a function of the view alone, so whatever is computed on the
    result cannot depend on the real stock or face-down order."""
    gdef = game_def(view.game_id)  # a game this version does not know: UnknownGame, in one line
    cards = dict(view.piles)
    # The unseen multiset: every face `decks` times, minus the visible cards.
    unseen = [gdef.decks] * 52
    for _name, pile in view.piles:
        for code in pile:
            if code is not None:
                unseen[FACE_OF_CODE[code]] -= 1
    filler = [f for f in range(52) for _ in range(max(unseen[f], 0))]
    filler.reverse()  # pop() hands them out in canonical order

    def take() -> int:
        # A malformed view could ask for more hidden cards than remain unseen;
        # any face keeps the engine working, and it is still view-only.
        return filler.pop() if filler else 0

    piles: list[list[int]] = []
    down: list[int] = []
    for name in gdef.pile_names:
        if name == "s":
            piles.append([take() for _ in range(view.stock)])
            down.append(0)
            continue
        pile = cards[name]
        # Face-down cards are always at the bottom of a pile (docs/rules.md §4.6).
        piles.append([take() if c is None else FACE_OF_CODE[c] for c in pile])
        down.append(sum(1 for c in pile if c is None))
    return Game(gdef, piles, down)


def best_move(position: View | str, *, nodes: int = DEFAULT_HINT_NODES) -> str | None:
    """The first move of the best line found from ``position`` (a View or a
    view text), or None when no move improves on standing still and nothing
    can be revealed (the player is stuck).

    Best-first over positions reached by moves that reveal nothing, each
    expanded once; ``nodes`` bounds the positions generated. A line counts
    if it wins, ends in a move that reveals a card, or ends in a visible
    position that evaluates better than the current one; the best such end
    wins (ties: the shorter line, then the first found).
    """
    view = rules.view_from_text(position) if isinstance(position, str) else position
    root = visible_game(view)
    root_value = _value(root)
    seen = {position_key(root)}
    # Best end so far: ((value, -depth, -order), first move).
    best: tuple[tuple[float, int, int], str] | None = None
    frontier: list[tuple[float, int, Game, str | None, int]] = [(-root_value, 0, root, None, 0)]
    order = 0
    generated = 0
    while frontier and generated < nodes:
        _, _, node, first, depth = heapq.heappop(frontier)
        for move in ordered_moves(node):
            head = first or move
            child = node.copy()
            revealed = child.apply(move).revealed
            generated += 1
            order += 1
            value = float("inf") if child.won else _value(child)
            rank = (value, -(depth + 1), -order)
            if revealed or child.won:
                if best is None or rank > best[0]:
                    best = (rank, head)
                continue
            key = position_key(child)
            if key in seen:
                continue
            seen.add(key)
            if value > root_value and (best is None or rank > best[0]):
                best = (rank, head)
            heapq.heappush(frontier, (-value, order, child, head, depth + 1))
    return None if best is None else best[1]
