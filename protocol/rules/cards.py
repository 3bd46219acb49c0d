"""Cards as small ints, with every per-card fact precomputed.

Two integer forms exist:

* the **card id** of docs/rules.md §1.1, ``deck*52 + suit*13 + (rank-1)``, used only
  by the deal (it fixes the order of the canonical deck);
* the **face**, ``suit*13 + (rank-1)`` in ``0..51``, i.e. ``card_id % 52``.

Copies of a card from different decks are equal for every rule, so the engine
stores faces only: a position never needs to know which deck a card came from,
and two positions that differ only by deck provenance are the same position.

Rank, suit, colour and text code are looked up in tuples indexed by face rather
than computed, because the move generator asks for them in its inner loops.
"""

from __future__ import annotations

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"

#: Faces in canonical order (clubs A..K, diamonds, hearts, spades).
FACES: tuple[int, ...] = tuple(range(52))

#: Rank 1..13 of a face.
RANK: tuple[int, ...] = tuple(f % 13 + 1 for f in FACES)
#: Suit index 0..3 (c, d, h, s) of a face.
SUIT: tuple[int, ...] = tuple(f // 13 for f in FACES)
#: 1 for red (diamonds, hearts), 0 for black (clubs, spades).
RED: tuple[int, ...] = tuple(1 if f // 13 in (1, 2) else 0 for f in FACES)
#: Two-character text code of a face, e.g. ``Th``.
CODE: tuple[str, ...] = tuple(RANK_CHARS[f % 13] + SUIT_CHARS[f // 13] for f in FACES)
#: Suit symbols in suit order, for people (messages, boards); notation keeps ``cdhs``.
SUIT_SYMBOLS = "♣♦♥♠"
#: A face as people read it: ``9♥``, ``10♣`` (the ten is ``T`` only in notation).
NAME: tuple[str, ...] = tuple(
    ("10" if RANK_CHARS[f % 13] == "T" else RANK_CHARS[f % 13]) + SUIT_SYMBOLS[f // 13] for f in FACES
)
#: Text code of a face-down face, as written in a position text.
DOWN_CODE: tuple[str, ...] = tuple("~" + c for c in CODE)
#: Text code -> face.
FACE_OF_CODE: dict[str, int] = {c: f for f, c in enumerate(CODE)}

#: Faces of a given rank, in suit order: ``OF_RANK[r]`` for r in 1..13
#: (index 0 and 14 are empty so that ``r±1`` never needs a bounds check).
OF_RANK: tuple[tuple[int, ...], ...] = tuple(
    tuple(s * 13 + r - 1 for s in range(4)) if 1 <= r <= 13 else () for r in range(15)
)
#: Faces of a given rank and colour: ``OF_RANK_COLOUR[r][red]``.
OF_RANK_COLOUR: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (tuple(f for f in OF_RANK[r] if not RED[f]), tuple(f for f in OF_RANK[r] if RED[f])) for r in range(15)
)


def face(card_id: int) -> int:
    """The face of a card id (decks are indistinguishable for the rules)."""
    return card_id % 52


def card_code(card_id: int) -> str:
    """Text code of a card id or face, e.g. ``card_code(60) == '9c'``."""
    return CODE[card_id % 52]


def card_name(card: int | str) -> str:
    """A card as people read it, from a card id, a face or a text code: ``card_name("Th") == "10♥"``."""
    return NAME[parse_card(card) if isinstance(card, str) else card % 52]


def parse_card(code: str) -> int:
    """Face of a text code such as ``'Th'``; raises ``ValueError`` if unknown."""
    try:
        return FACE_OF_CODE[code]
    except KeyError:
        raise ValueError(f"not a card code: {code!r}") from None


def canonical_deck(decks: int) -> list[int]:
    """Card ids of ``decks`` decks in canonical order (docs/rules.md §8.1)."""
    return list(range(decks * 52))
