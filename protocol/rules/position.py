"""Reading position texts and view texts (docs/rules.md §7).

``from_text`` accepts only positions that can occur in the game: the exact
card multiset, piles in canonical order, and every structural invariant the
rules maintain (foundations built by their rule from their start, one-card
tableau piles, face-down cards only where the deal put them and always below
the face-up ones, a Fours Up tableau pile being one descending run, the Rouge
et Noir pair rule). Counts that depend on the history of play (how many cards
are left in a reserve or the stock) are not checked, so test positions can
park unused cards anywhere a card may lie.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .cards import CODE, FACE_OF_CODE, RANK, RED
from .engine import Game
from .errors import PositionError
from .games import GAMES, AccTop, GameDef, Kind
from .view import HIDDEN, View

# A view's stock: its count in ASCII decimal, no leading zero (str.isdigit() takes "²" and "٩").
# At most three digits (no game's stock holds 1,000 cards): a count of thousands of digits
# failed in int() itself, a ValueError that was no PositionError.
_STOCK_COUNT_RE = re.compile(r"#(?:0|[1-9][0-9]{0,2})", re.ASCII)


def _plural(n: int, noun: str) -> str:
    """``1 pile``, ``2 piles``: a count with its noun, singular or plural."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _times(n: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _split(text: str, what: str) -> tuple[GameDef, list[tuple[str, str]]]:
    if not isinstance(text, str):
        raise PositionError(f"a {what} text is a string")
    text = text.strip()
    if "\n" in text or "\r" in text:
        raise PositionError(f"a {what} text is one line")
    tokens = text.split(" ")
    game = GAMES.get(tokens[0])
    if game is None:
        raise PositionError(f"unknown game {tokens[0]!r}")
    pairs = []
    for tok in tokens[1:]:
        name, sep, cards = tok.partition(":")
        if not sep:
            raise PositionError(f"expected NAME:CARDS, got {tok!r}")
        pairs.append((name, cards))
    names = [n for n, _ in pairs]
    if names != list(game.pile_names):
        for n in names:
            if n not in game.index:
                raise PositionError(f"{game.name} has no pile {n!r}")
        seen = set()
        for n in names:
            if n in seen:
                raise PositionError(f"pile {n} appears twice")
            seen.add(n)
        missing = [n for n in game.pile_names if n not in seen]
        if missing:
            raise PositionError(f"missing pile{'' if len(missing) == 1 else 's'}: {', '.join(missing)}")
        raise PositionError(f"piles out of order: expected {' '.join(game.pile_names)}")
    return game, pairs


def _cards(name: str, text: str, hidden_token: str) -> tuple[list[int | None], int]:
    """Faces (None for a hidden card) and the number of leading face-down cards;
    ``hidden_token`` is ``~`` (position: ``~Kh``) or ``??`` (view)."""
    faces: list[int | None] = []
    down = 0
    i = 0
    n = len(text)
    while i < n:
        hidden = text.startswith(hidden_token, i)
        if hidden:
            i += len(hidden_token)
            if hidden_token == HIDDEN:
                faces.append(None)
                if down != len(faces) - 1:
                    raise PositionError(f"{name}: a face-down card above a face-up one")
                down += 1
                continue
        code = text[i : i + 2]
        f = FACE_OF_CODE.get(code)
        if f is None:
            raise PositionError(f"{name}: bad card code {code!r}")
        i += 2
        if hidden:
            if down != len(faces):
                raise PositionError(f"{name}: a face-down card above a face-up one")
            down += 1
        faces.append(f)
    return faces, down


def _check_structure(game: GameDef, piles: Sequence[Sequence[int | None]], down: list[int]) -> None:
    """Raise PositionError unless the piles satisfy the invariants of the rules.

    In a view, face-down cards are ``None``; the face-down count check comes
    first, so piles that may not hold them never reach the per-card checks."""
    for i, p in enumerate(piles):
        name = game.pile_names[i]
        kind = game.kinds[i]
        if down[i] > game.max_down[i]:
            raise PositionError(
                f"{name}: {_plural(down[i], 'face-down card')} where at most {game.max_down[i]} can be"
            )
        if down[i] and down[i] == len(p):
            raise PositionError(f"{name}: the top card is face down (it would have been turned up)")
        faces = [f for f in p if f is not None]  # the same pile, unless it has face-down cards
        if kind == Kind.FOUNDATION:
            pd = game.piles[i]
            if faces and RANK[faces[0]] != pd.start:
                raise PositionError(f"{name}: must start with rank {pd.start}, not {CODE[faces[0]]}")
            _check_chain(game, i, faces)
        elif kind == Kind.COLOUR:
            if faces and RANK[faces[0]] != 1:
                raise PositionError(f"{name}: must start with an ace, not {CODE[faces[0]]}")
            _check_chain(game, i, faces)
        elif kind == Kind.SUIT_WRAP:
            if faces and RANK[faces[0]] != 4:
                raise PositionError(f"{name}: must start with a 4, not {CODE[faces[0]]}")
            _check_chain(game, i, faces)
        elif kind == Kind.SEQUENCE:
            if faces and (
                len(faces) != 13 or RANK[faces[0]] != 13 or not _is_run(game.acc_top[game.tab_idx[0]], faces)
            ):
                raise PositionError(f"{name}: holds nothing or one whole K..A alternating run")
        elif kind == Kind.SINGLE:
            if len(faces) > 1:
                raise PositionError(f"{name}: a tableau pile of this game holds at most one card")
        elif kind == Kind.DOWN:
            if not _is_run(game.acc_top[i], faces):
                raise PositionError(f"{name}: not a pile the placing rule can build")
    # The pair rule keeps the two bottoms of a pair aces of different colours.
    for i in game.found_idx:
        if game.pair_rule[i]:
            j = game.partner[i]
            bottom, other = piles[i][0] if piles[i] else None, piles[j][0] if piles[j] else None
            if i < j and bottom is not None and other is not None and RED[bottom] == RED[other]:
                raise PositionError(
                    f"{game.pile_names[i]} and {game.pile_names[j]} are a pair and cannot both "
                    "hold aces of one colour"
                )


def _is_run(acc: AccTop, p: list[int]) -> bool:
    return all(p[n + 1] in acc[p[n]] for n in range(len(p) - 1))


def _check_chain(game: GameDef, i: int, p: list[int]) -> None:
    acc = game.acc_top[i]
    for n in range(len(p) - 1):
        if p[n + 1] not in acc[p[n]]:
            raise PositionError(
                f"{game.pile_names[i]}: {CODE[p[n + 1]]} cannot lie on {CODE[p[n]]} on this foundation"
            )


def from_text(text: str) -> Game:
    """The Game of a position text; raises PositionError if it is malformed or
    not a position of its game."""
    game, pairs = _split(text, "position")
    piles: list[list[int]] = []
    down: list[int] = []
    for name, cards in pairs:
        faces, d = _cards(name, cards, "~")
        piles.append([f for f in faces if f is not None])  # (none is: "~Kh" is a face-down Kh)
        down.append(d)
    counts = [0] * 52
    for p in piles:
        for f in p:
            counts[f] += 1
    wrong = [CODE[f] + f"×{c}" for f, c in enumerate(counts) if c != game.decks]
    if wrong:
        raise PositionError(
            f"{game.name} has each card exactly {_times(game.decks)}; wrong: {' '.join(wrong[:8])}"
            + (" …" if len(wrong) > 8 else "")
        )
    _check_structure(game, piles, down)
    return Game(game, piles, down)


def view_from_text(text: str) -> View:
    """The View of a view text (as written by ``View.to_text``)."""
    game, pairs = _split(text, "view")
    stock = -1
    piles: list[tuple[str, tuple[str | None, ...]]] = []
    faces_by_pile: list[list[int | None]] = []
    down: list[int] = []
    counts = [0] * 52
    for name, cards in pairs:
        if name == "s":
            if not _STOCK_COUNT_RE.fullmatch(cards):
                got = cards if len(cards) <= 12 else cards[:12] + "…"
                raise PositionError(f"the stock of a view is written s:#N, got s:{got}")
            stock = int(cards[1:])
            faces_by_pile.append([])
            down.append(0)
            continue
        faces, d = _cards(name, cards, HIDDEN)
        for f in faces:
            if f is not None:
                counts[f] += 1
        faces_by_pile.append(faces)
        down.append(d)
        piles.append((name, tuple(None if f is None else CODE[f] for f in faces)))
    over = [CODE[f] for f, c in enumerate(counts) if c > game.decks]
    if over:
        raise PositionError(f"more than {game.decks} of: {' '.join(over)}")
    shown = sum(len(p) for p in faces_by_pile) + stock
    if shown != game.total:
        raise PositionError(f"{game.name} has {game.total} cards, this view {shown}")
    _check_structure(game, faces_by_pile, down)
    home = sum(len(faces_by_pile[i]) for i in game.found_idx)
    return View(game.id, tuple(piles), stock, home, game.total)
