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

from collections.abc import Callable, Sequence
from itertools import chain
from operator import add, itemgetter
from typing import TypeVar

from protocol.rules.cards import RANK, RED
from protocol.rules.engine import Game
from protocol.rules.games import DRAW, GameDef, Kind

#: Where ``draw`` comes in the move order (lower is earlier; see
#: ``ordered_moves``). Fours Up tries the next card before rearranging the
#: tableau: its rearrangements are many and mostly lead to the same few
#: shapes, and drawing first makes the first dive go deeper.
DRAW_RANK = {"fours-up": 15}

T = TypeVar("T")


# -- the canonical key ------------------------------------------------------

# bytes.translate tables from faces (0..51) to what the rules look at; _SEP
# (never a face, a rank or a length here) maps to itself, so piles joined by
# it translate in one call and split again on it.
_RANK_OF_FACE = bytes([RANK[f] if f < 52 else 0 for f in range(255)] + [255])
_RANK_COLOUR_OF_FACE = bytes([RANK[f] * 2 + RED[f] if f < 52 else 0 for f in range(255)] + [255])
_SEP = b"\xff"
#: bytes([n]) for n in 0..255, without building a list each time.
_BYTE = [bytes([n]) for n in range(256)]

KeyFn = Callable[[list[list[int]], list[int]], bytes]


def _getter(idx: Sequence[int]) -> Callable[[Sequence[T]], tuple[T, ...]]:
    """itemgetter that returns a tuple even for one index."""
    if len(idx) == 1:
        (i,) = idx
        return lambda seq: (seq[i],)
    return itemgetter(*idx)


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


# The key functions below are built once per game and written for speed (the
# solver keys every child it generates, ~8 per position expanded): each part
# is a few C-level calls (map, sorted, join, translate) over the piles rather
# than a Python loop per pile. Every key is a fixed sequence of parts that
# cannot be confused (fixed widths, or _SEP between parts that never hold it),
# so equal keys mean equal parts.


def _rank_key(game: GameDef) -> KeyFn:
    """Racing Aces, Double Aces and Kings: ranks only.

    Parts: the lengths of the stock and the reserves; each foundation's length
    plus 16 × its group's number, all sorted (the sorted lengths of each
    group, group after group: lengths are at most 13) followed by 16 × the
    number of groups plus the rank of each tableau card, sorted in with them
    (one-card piles: the multiset of their ranks, empty ones implied by the
    count); then _SEP and the waste's ranks."""
    by_length, groups, as_is = _groups(game)
    *found_groups, tab = groups
    assert len(found_groups) * 16 + 13 < 255
    found = [i for grp in found_groups for i in grp]
    offsets = [16 * n for n, grp in enumerate(found_groups) for _ in grp]
    tab_table = bytes([min(b + 16 * len(found_groups), 255) if b else 0 for b in _RANK_OF_FACE])
    lengths_of = _getter(by_length)
    found_of = _getter(found)
    tab_of = _getter(tab)
    (waste,) = as_is
    rank = _RANK_OF_FACE
    sep = _SEP
    chain_piles = chain.from_iterable

    def key(piles: list[list[int]], down: list[int]) -> bytes:
        heights = list(map(add, map(len, found_of(piles)), offsets))
        heights += bytes(chain_piles(tab_of(piles))).translate(tab_table)
        heights.sort()
        return bytes(map(len, lengths_of(piles))) + bytes(heights) + sep + bytes(piles[waste]).translate(rank)

    return key


def _fours_up_key(game: GameDef) -> KeyFn:
    """Fours Up. Parts: the foundations' contents, sorted (for a foundation
    the engine built, its content and its (bottom card, length) say the same);
    the tableau piles, sorted; the waste; the stock's length."""
    by_length, (found, tab), (waste,) = _groups(game)
    (stock,) = by_length
    found_of = _getter(found)
    tab_of = _getter(tab)
    sep = _SEP
    byte = _BYTE

    def key(piles: list[list[int]], down: list[int]) -> bytes:
        parts = sorted(map(bytes, found_of(piles)))
        parts += sorted(map(bytes, tab_of(piles)))
        parts.append(bytes(piles[waste]))
        parts.append(byte[len(piles[stock])])
        return sep.join(parts)

    return key


def _rouge_et_noir_key(game: GameDef) -> KeyFn:
    """Rouge et Noir. Suits never matter (colour foundations and the tableau
    look at rank and colour only). Face-down cards are part of the position:
    the solver knows them, and the key keeps where they lie.

    While the stock lasts: the stock's length, the tableau's face-down counts
    in pile order, then every other pile in pile order. Once it is gone
    nothing tells tableau piles apart any more (K to any empty pile, runs
    onto any pile by colour and rank): a zero (the stock's length), the
    foundations in pile order, then each tableau pile as its face-down count
    and its cards, sorted."""
    by_length, _, as_is = _groups(game)
    (stock,) = by_length
    tab = [i for i in as_is if game.kinds[i] == Kind.ALTERNATE]
    found = [i for i in as_is if game.kinds[i] != Kind.ALTERNATE]
    assert found + tab == as_is
    found_of = _getter(found)
    tab_of = _getter(tab)
    others_of = _getter(as_is)
    table = _RANK_COLOUR_OF_FACE
    sep = _SEP
    byte = _BYTE
    down_byte = byte.__getitem__

    def key(piles: list[list[int]], down: list[int]) -> bytes:
        n = len(piles[stock])
        if n:
            return byte[n] + bytes(tab_of(down)) + sep.join(map(bytes, others_of(piles))).translate(table)
        cards = sep.join(map(bytes, tab_of(piles))).translate(table).split(sep)
        tabs = sorted(map(add, map(down_byte, tab_of(down)), cards))
        return sep.join([byte[0], sep.join(map(bytes, found_of(piles))).translate(table), *tabs])

    return key


_KEY_BUILDERS: dict[str, Callable[[GameDef], KeyFn]] = {
    "racing-aces": _rank_key,
    "double-aces-and-kings": _rank_key,
    "fours-up": _fours_up_key,
    "rouge-et-noir": _rouge_et_noir_key,
}
_KEYS: dict[str, KeyFn] = {}


def key_function(game: GameDef) -> KeyFn:
    """``position_key`` for positions of ``game``, as a function of (piles, down)."""
    fn = _KEYS.get(game.id)
    if fn is None:
        fn = _KEYS[game.id] = _KEY_BUILDERS[game.id](game)
    return fn


def position_key(g: Game) -> bytes:
    """A compact key: equal keys are positions the rules cannot tell apart.

    Only meaningful between positions of the same deal: the stock and the
    reserves are keyed by their length (they only ever lose their top card,
    so for one deal the length says which cards they hold).
    """
    fn = _KEYS.get(g.game.id) or key_function(g.game)
    return fn(g.piles, g.down)


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
    table = _MOVE_TABLES.get(game.id) or _move_table(game)
    piles = g.piles
    down = g.down
    kinds = game.kinds
    stock_empty = not piles[game.stock_idx]
    interchangeable = game.id != "rouge-et-noir" or stock_empty
    refills = game.refill and not stock_empty
    first_empty: dict[Kind, int] = {}
    if interchangeable:
        for i in game.tab_idx:
            if not piles[i]:
                first_empty.setdefault(kinds[i], i)
    moves = g.legal_moves()
    # score << 16 | index: sorting these ints sorts by score, ties in the
    # order of legal_moves (as sorting (score, index, move) did).
    order: list[int] = []
    for n, move in enumerate(moves):
        score, s, k, d, tab_d, twin, tab_s, rest = table[move]
        if score < 0:
            if score == _DROP:
                continue
            src = piles[s]
            if tab_d and interchangeable and not piles[d]:
                if first_empty.get(kinds[d]) != d:
                    continue
                if twin and len(src) == k and not refills:
                    continue
            ds = down[s]
            if ds and len(src) - k == ds:
                score = 10  # turns a face-down card up
            elif tab_s and len(src) == k:
                score = 20  # empties a pile (a refill in Racing Aces)
            else:
                score = rest
        order.append(score << 16 | n)
    order.sort()
    return [moves[x & 0xFFFF] for x in order]


# ordered_moves's scores: what depends only on the move is worked out once
# per game. A move's entry: (score, or _DROP, or _DEPENDS when the position
# decides; source, cards, destination; is the destination a tableau pile;
# are source and destination tableau piles of one kind; is the source a
# tableau pile; the score when nothing about the position changes it).
_DROP = -2
_DEPENDS = -1
_MoveEntry = tuple[int, int, int, int, bool, bool, bool, int]
_MOVE_TABLES: dict[str, dict[str, _MoveEntry]] = {}


def _move_table(game: GameDef) -> dict[str, _MoveEntry]:
    table: dict[str, _MoveEntry] = {}
    is_found = game.is_found
    is_tab = game.is_tab
    kinds = game.kinds
    for move, parsed in game.parse_cache.items():
        if parsed == DRAW:
            table[move] = (DRAW_RANK.get(game.id, 60), 0, 0, 0, False, False, False, 0)
            continue
        s, k, d = parsed
        twin = is_tab[s] and kinds[s] == kinds[d]
        if is_found[s]:
            # A foundation's top onto a foundation that takes the same cards
            # only swaps their lengths (see above).
            ps, pd = game.piles[s], game.piles[d]
            same = is_found[d] and kinds[s] == kinds[d] and game.id != "rouge-et-noir"
            score = _DROP if same and ps.start == pd.start and ps.step == pd.step else 90
        elif is_found[d]:
            score = 0 if not is_tab[s] else 5
        else:
            score = _DEPENDS
        if game.waste_idx == s:
            rest = 30
        elif s in game.reserve_idx:
            rest = 25
        else:
            rest = 40
        table[move] = (score, s, k, d, is_tab[d], twin, is_tab[s], rest)
    _MOVE_TABLES[game.id] = table
    return table
