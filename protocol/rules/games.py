"""The four games as data over one engine.

A game is a list of piles, each of a *kind*; a kind fixes what a pile accepts
and whether it can give cards. A few game-wide switches cover the rest (refill
of emptied tableau piles, where ``draw`` puts cards, whether colour foundations
may feed each other). The engine (``engine.py``) knows only kinds and switches.
What clients show of a game (its blurb, labelled pile groups) is in ``facts.py``.

Acceptance is precomputed: for each destination pile, ``acc_top[top_face]``
is the tuple of faces it accepts on that top card, and ``acc_empty`` the faces
it accepts when empty (unless ``takes_any``: an empty pile that takes any card
or run, or a colour foundation, whose empty pile is governed by the pair rule
with its ``partner``). The same tables drive move checking (``face in
acc_top[top]``) and move generation (bucket every destination under the faces
it wants, then look up each source's card once), so the two cannot disagree.

Move notation strings are also precomputed into ``parse_cache`` (string ->
``(src, k, dst)``) and ``notation``/``run_notation`` (indices -> string), so
that playing or listing a move costs a dict lookup, not string work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

from .cards import OF_RANK, OF_RANK_COLOUR, RANK, RED, SUIT, canonical_deck, face
from .deal import shuffle


class Kind(IntEnum):
    """Pile kinds. Acceptance rules live in ``_acceptance`` below."""

    FOUNDATION = 0  # any suit, from ``start`` by ``step`` (Racing Aces, Double A&K)
    COLOUR = 1  # Rouge et Noir colour foundation: A up in one colour, pair rule
    SEQUENCE = 2  # Rouge et Noir sequence foundation: one whole K..A run, kept
    SUIT_WRAP = 3  # Fours Up foundation: 4 up in suit, K wraps to A, 3 ends it
    RESERVE = 4  # gives its top, takes nothing
    SINGLE = 5  # tableau of at most one card (Racing Aces, Double A&K)
    ALTERNATE = 6  # tableau building down in alternating colour, K to empty
    DOWN = 7  # tableau building down any suit on 5..K, anything to empty
    STOCK = 8
    WASTE = 9


FOUNDATION_KINDS = frozenset({Kind.FOUNDATION, Kind.COLOUR, Kind.SEQUENCE, Kind.SUIT_WRAP})
TABLEAU_KINDS = frozenset({Kind.SINGLE, Kind.ALTERNATE, Kind.DOWN})

DRAW: Final = "draw"
#: A parsed move: ``DRAW``, or (source pile, number of cards, destination pile).
Parsed = Literal["draw"] | tuple[int, int, int]
#: Faces accepted on each top face (indexed by face 0..51).
AccTop = tuple[tuple[int, ...], ...]
_NOTHING: AccTop = tuple(() for _ in range(52))
#: Longest run that any game can hold (K..A); longer run notations are still
#: parsed (and refused as not available) but not precomputed.
MAX_RUN = 13

_PILE_RE = r"(?:[a-z]+(?:0|[1-9][0-9]*)?)"
_MOVE_RE = re.compile(rf"({_PILE_RE})(?::(0|[1-9][0-9]*))?>({_PILE_RE})")


@dataclass(frozen=True, slots=True)
class PileDef:
    name: str
    kind: Kind
    #: FOUNDATION: the rank that starts the pile, and +1 / -1 per card.
    start: int = 0
    step: int = 0
    #: COLOUR: name of the other pile of its pair.
    partner: str | None = None


class NotationError(Exception):
    """Raised by ``GameDef.parse_move``; the engine turns it into IllegalMove."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code


def _acceptance(p: PileDef) -> tuple[AccTop, tuple[int, ...]]:
    """(acc_top table indexed by top face, acc_empty) for a pile; nothing at
    all for piles that never receive a card by a move. Empty piles that take
    any card, and the pair rule, are not in these tables (see GameDef)."""
    k = p.kind
    if k == Kind.FOUNDATION:
        # No wrap: OF_RANK[0] and OF_RANK[14] are empty, so a full pile takes nothing.
        return tuple(OF_RANK[RANK[f] + p.step] for f in range(52)), OF_RANK[p.start]
    if k == Kind.COLOUR:
        return tuple(OF_RANK_COLOUR[RANK[f] + 1][RED[f]] for f in range(52)), ()
    if k == Kind.SUIT_WRAP:
        top = []
        for f in range(52):
            r = RANK[f]
            # The 3 that ends a full pile (4..K,A,2,3) takes nothing.
            top.append(() if r == 3 else (SUIT[f] * 13 + r % 13,))
        return tuple(top), OF_RANK[4]
    if k == Kind.SINGLE:
        return _NOTHING, ()
    if k == Kind.ALTERNATE:
        return tuple(OF_RANK_COLOUR[RANK[f] - 1][1 - RED[f]] for f in range(52)), OF_RANK[13]
    if k == Kind.DOWN:
        # Only 5..K take a card: nothing goes onto a 4, 3, 2 or A.
        return tuple(OF_RANK[RANK[f] - 1] if RANK[f] >= 5 else () for f in range(52)), ()
    if k == Kind.SEQUENCE:
        # Only a whole run onto an empty pile; handled by the engine directly.
        return _NOTHING, ()
    return _NOTHING, ()


class GameDef:
    """One game: its piles, its deal and its switches, plus derived tables.

    Public attributes: ``id``, ``name``, ``decks``, ``total``, ``pile_names``,
    ``piles`` (PileDefs), ``stock_size`` (cards in the stock after the deal).
    Everything else is engine-internal.
    """

    def __init__(
        self,
        id: str,
        name: str,
        decks: int,
        piles: list[PileDef],
        *,
        reserve_rounds: int = 0,
        tableau_sizes: tuple[int, ...] = (),
        face_down: bool = False,
        base_rank: int | None = None,
        draw_to_tableau: bool = False,
        refill: bool = False,
        colour_to_colour: bool = True,
    ) -> None:
        self.id = id
        self.name = name
        self.decks = decks
        self.total = decks * 52
        self.piles = tuple(piles)
        self.pile_names = tuple(p.name for p in piles)
        self.index = {n: i for i, n in enumerate(self.pile_names)}
        assert len(self.index) == len(self.piles)
        self.reserve_rounds = reserve_rounds
        self.tableau_sizes = tableau_sizes
        self.face_down = face_down
        self.base_rank = base_rank
        self.draw_to_tableau = draw_to_tableau
        self.refill = refill

        kinds = [p.kind for p in piles]
        self.kinds = kinds
        self.found_idx = tuple(i for i, k in enumerate(kinds) if k in FOUNDATION_KINDS)
        self.reserve_idx = tuple(i for i, k in enumerate(kinds) if k == Kind.RESERVE)
        self.tab_idx = tuple(i for i, k in enumerate(kinds) if k in TABLEAU_KINDS)
        self.seq_idx = tuple(i for i, k in enumerate(kinds) if k == Kind.SEQUENCE)
        self.stock_idx = self.index["s"]
        self.waste_idx = self.index.get("w")
        assert len(self.tab_idx) == len(tableau_sizes)
        self.is_found = [k in FOUNDATION_KINDS for k in kinds]
        self.is_tab = [k in TABLEAU_KINDS for k in kinds]
        self.gives = [k not in (Kind.STOCK, Kind.SEQUENCE) for k in kinds]
        self.runs = [k in (Kind.ALTERNATE, Kind.DOWN) for k in kinds]
        self.receives = [k not in (Kind.STOCK, Kind.WASTE, Kind.RESERVE) for k in kinds]
        # May this pile's top go to a (non-sequence) foundation?
        self.home_ok = [colour_to_colour or k != Kind.COLOUR for k in kinds]
        self.partner = [self.index[p.partner] if p.partner else -1 for p in piles]
        acc = [_acceptance(p) for p in piles]
        self.acc_top = [a[0] for a in acc]
        self.acc_empty = [a[1] for a in acc]
        # An empty pile that takes any card or run; an empty colour foundation,
        # which takes the aces the pair rule allows.
        self.takes_any = [k in (Kind.SINGLE, Kind.DOWN) for k in kinds]
        self.pair_rule = [k == Kind.COLOUR for k in kinds]
        # Cards face down after the deal: a pile can never hold more than that.
        self.max_down = [0] * len(piles)
        if face_down:
            for i, size in zip(self.tab_idx, tableau_sizes):
                self.max_down[i] = max(size - 1, 0)
        dealt = reserve_rounds * len(self.reserve_idx) + sum(tableau_sizes)
        based = 0 if base_rank is None else len(self.found_idx)
        self.stock_size = self.total - dealt - based

        names = self.pile_names
        n = len(names)
        self.notation = [[f"{names[s]}>{names[d]}" for d in range(n)] for s in range(n)]
        # run_notation[s][k][d] for tableau piles only (others never move runs).
        # (rows 0 and 1 are empty: a run has 2 cards or more)
        self.run_notation: list[list[list[str]]] = [[] for _ in range(n)]
        cache: dict[str, Parsed] = {DRAW: DRAW}
        for s in range(n):
            for d in range(n):
                if s != d:
                    cache[self.notation[s][d]] = (s, 1, d)
        for s in self.tab_idx:
            table: list[list[str]] = [[], []]
            for k in range(2, MAX_RUN + 1):
                row = [f"{names[s]}:{k}>{names[d]}" for d in range(n)]
                table.append(row)
                for d in range(n):
                    if s != d:
                        cache[row[d]] = (s, k, d)
            self.run_notation[s] = table
        self.parse_cache = cache

    def __repr__(self) -> str:
        return f"<GameDef {self.id}>"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Game definitions are singletons: pickling or deep-copying a Game must
        # not clone the (large) tables, and identity checks must keep working.
        return (_game_by_id, (self.id,))

    def parse_move(self, move: str) -> Parsed:
        """``DRAW`` or ``(src, k, dst)`` pile indices; raises NotationError."""
        if not isinstance(move, str):
            raise NotationError("bad-notation", "a move is a string")
        hit = self.parse_cache.get(move)
        if hit is not None:
            return hit
        m = _MOVE_RE.fullmatch(move)
        if m is None:
            raise NotationError("bad-notation", "not a move: expected draw, SRC>DST or SRC:K>DST")
        src, kstr, dst = m.groups()
        # Past 4 digits a count is beyond every pile; int() of thousands of digits is slow and
        # raises past 4,300. 10,000 gets the refusal any 4-digit count gets.
        k = 1 if kstr is None else int(kstr) if len(kstr) <= 4 else 10_000
        if kstr is not None and k < 2:
            raise NotationError("bad-notation", "a run count is written only when it is 2 or more")
        for name in (src, dst):
            if name not in self.index:
                raise NotationError("no-such-pile", f"{self.name} has no pile {name!r}")
        if src == dst:
            raise NotationError("same-pile", "source and destination are the same pile")
        return (self.index[src], k, self.index[dst])

    def deal_layout(self, seed: str) -> tuple[list[list[int]], list[int]]:
        """Piles (faces, bottom first) and face-down counts for a seed (docs/rules.md §8.5)."""
        piles: list[list[int]] = [[] for _ in self.piles]
        down = [0] * len(self.piles)
        deck = canonical_deck(self.decks)
        if self.base_rank is not None:
            bases = [c for c in deck if c % 13 == self.base_rank - 1]
            for i, c in zip(self.found_idx, bases):
                piles[i].append(face(c))
            deck = [c for c in deck if c % 13 != self.base_rank - 1]
        cards = shuffle(deck, seed)
        nxt = 0
        for _ in range(self.reserve_rounds):
            for i in self.reserve_idx:
                piles[i].append(face(cards[nxt]))
                nxt += 1
        for row in range(max(self.tableau_sizes, default=0)):
            for i, size in zip(self.tab_idx, self.tableau_sizes):
                if size > row:
                    piles[i].append(face(cards[nxt]))
                    nxt += 1
        if self.face_down:
            for i, size in zip(self.tab_idx, self.tableau_sizes):
                down[i] = max(size - 1, 0)
        # The first card left over is the stock's top, i.e. the list's end.
        piles[self.stock_idx] = [face(c) for c in reversed(cards[nxt:])]
        assert len(piles[self.stock_idx]) == self.stock_size
        return piles, down


def _foundations(prefix_start: int, groups: list[tuple[int, int, int]]) -> list[PileDef]:
    out = []
    i = prefix_start
    for count, start, step in groups:
        for _ in range(count):
            out.append(PileDef(f"f{i}", Kind.FOUNDATION, start, step))
            i += 1
    return out


def _named(prefix: str, count: int, kind: Kind) -> list[PileDef]:
    return [PileDef(f"{prefix}{i}", kind) for i in range(count)]


RACING_ACES = GameDef(
    "racing-aces",
    "Racing Aces",
    3,
    _foundations(0, [(4, 1, +1), (4, 6, -1), (4, 7, +1), (4, 13, -1)])
    + _named("r", 3, Kind.RESERVE)
    + _named("t", 6, Kind.SINGLE)
    + [PileDef("s", Kind.STOCK), PileDef("w", Kind.WASTE)],
    reserve_rounds=13,
    tableau_sizes=(1,) * 6,
    refill=True,
)

DOUBLE_ACES_AND_KINGS = GameDef(
    "double-aces-and-kings",
    "Double Aces and Kings",
    4,
    _foundations(0, [(8, 1, +1), (8, 13, -1)])
    + _named("r", 4, Kind.RESERVE)
    + _named("t", 8, Kind.SINGLE)
    + [PileDef("s", Kind.STOCK), PileDef("w", Kind.WASTE)],
    reserve_rounds=13,
    tableau_sizes=(1,) * 8,
)

ROUGE_ET_NOIR = GameDef(
    "rouge-et-noir",
    "Rouge et Noir",
    2,
    [
        PileDef("f0", Kind.COLOUR, partner="f1"),
        PileDef("f1", Kind.COLOUR, partner="f0"),
        PileDef("f2", Kind.COLOUR, partner="f3"),
        PileDef("f3", Kind.COLOUR, partner="f2"),
    ]
    + [PileDef(f"f{i}", Kind.SEQUENCE) for i in range(4, 8)]
    + _named("t", 10, Kind.ALTERNATE)
    + [PileDef("s", Kind.STOCK)],
    tableau_sizes=(8, 7, 6, 5, 4, 3, 2, 1, 1, 0),
    face_down=True,
    draw_to_tableau=True,
    colour_to_colour=False,
)

FOURS_UP = GameDef(
    "fours-up",
    "Fours Up",
    2,
    [PileDef(f"f{i}", Kind.SUIT_WRAP) for i in range(8)]
    + _named("t", 6, Kind.DOWN)
    + [PileDef("s", Kind.STOCK), PileDef("w", Kind.WASTE)],
    tableau_sizes=(1,) * 6,
    base_rank=4,
)

GAMES: dict[str, GameDef] = {g.id: g for g in (RACING_ACES, DOUBLE_ACES_AND_KINGS, ROUGE_ET_NOIR, FOURS_UP)}


def _game_by_id(game_id: str) -> GameDef:
    return GAMES[game_id]
