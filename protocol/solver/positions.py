"""What the solver treats as one position, and which moves it tries first (protocol/solver/
search.py's search and rollout.py's rollout are built on both).

* **A canonical position key** (``position_key``). Positions that differ only
  by what the rules cannot tell apart share one key, so a set of visited
  keys cuts them all at once: suits in games whose rules never look at suits,
  piles that are interchangeable (free cells, foundations of one kind), and
  piles whose contents follow from their length (a reserve or the stock only
  ever loses its top, a foundation's cards are fixed by its start and length).
  Equal keys mean the rules treat the two positions identically (the same
  moves up to renaming interchangeable piles), so one is won iff the other is.
* **Move ordering and pruning** (``ordered_moves``). Cards home first,
  ``draw`` and rearrangements later, moves back off a foundation last.
  Moves that are provably pointless are dropped (see the comments there).
"""

from __future__ import annotations

from typing import cast

from protocol.rules.cards import RANK, RED
from protocol.rules.engine import Game
from protocol.rules.games import DRAW, GameDef, Kind

#: Where ``draw`` comes in the move order (lower is earlier; see
#: ``ordered_moves``). Fours Up tries the next card before rearranging the
#: tableau: its rearrangements are many and mostly lead to the same few
#: shapes, and drawing first makes the first dive go deeper.
DRAW_RANK = {"fours-up": 15}


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


def ordered_moves(g: Game) -> list[str]:
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
