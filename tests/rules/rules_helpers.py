"""Compact construction of test positions, and move assertions.

A position text must hold the game's exact card multiset, so ``pos`` takes
only the piles a test cares about and parks every other card in one pile
(the stock by default, beneath any stock cards the test gives, so the test's
own stock cards stay on top).
"""

from __future__ import annotations

from collections import Counter

import pytest

from protocol import rules

RANKS = "A23456789TJQK"


def cards(ranks: str, suits: str) -> str:
    """Codes of a rank range, suits cycling: cards("A-9", "c") = 'Ac2c…9c',
    cards("K-A", "hs") = 'KhQsJh…' (alternating), cards("9", "c") = '9c'."""
    lo, _, hi = ranks.partition("-")
    a = RANKS.index(lo)
    b = RANKS.index(hi or lo)
    step = 1 if b >= a else -1
    seq = [RANKS[i] for i in range(a, b + step, step)]
    return "".join(r + suits[n % len(suits)] for n, r in enumerate(seq))


def codes(pile: str) -> list[str]:
    pile = pile.replace("~", "")
    assert len(pile) % 2 == 0, pile
    return [pile[i : i + 2] for i in range(0, len(pile), 2)]


def pos(game_id: str, fill: str = "s", **piles: str) -> rules.Game:
    """A position of ``game_id`` with the given piles (NAME=codes, bottom first,
    ``~`` for face down); every other card goes to the ``fill`` pile."""
    return rules.from_text(position_text(game_id, fill, **piles))


def position_text(game_id: str, fill: str = "s", **piles: str) -> str:
    """The text ``pos`` parses (unchecked, so tests can build bad positions)."""
    game = rules.GAMES[game_id]
    used = Counter(c for p in piles.values() for c in codes(p))
    rest = []
    for suit in "cdhs":
        for rank in RANKS:
            code = rank + suit
            spare = game.decks - used.pop(code, 0)
            assert spare >= 0, f"too many {code}"
            rest.extend([code] * spare)
    assert not used, f"bad codes {used}"
    piles = dict(piles)
    piles[fill] = "".join(rest) + piles.get(fill, "")
    unknown = set(piles) - set(game.pile_names)
    assert not unknown, unknown
    return " ".join([game_id] + [f"{n}:{piles.get(n, '')}" for n in game.pile_names])


def legal(g: rules.Game, move: str) -> None:
    """Assert ``move`` is legal (listed, checked, and playable on a copy)."""
    assert move in g.legal_moves(), f"{move} not listed in {g.legal_moves()}"
    assert g.is_legal(move)
    g.check(move)
    g.copy().play(move)


def refused(g: rules.Game, move: str, code: str = "not-accepted") -> rules.IllegalMove:
    """Assert ``move`` is refused with ``code`` and leaves the game unchanged."""
    before = g.to_text()
    assert move not in g.legal_moves()
    assert not g.is_legal(move)
    with pytest.raises(rules.IllegalMove) as info:
        g.play(move)
    assert info.value.code == code, str(info.value)
    assert info.value.move == move
    assert g.to_text() == before
    return info.value


def pile(g: rules.Game, name: str) -> str:
    return "".join(g.pile(name))
