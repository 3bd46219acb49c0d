"""What one player may see of their own game (docs/rules.md §7.3)."""

from __future__ import annotations

from dataclasses import dataclass

from .games import GAMES

HIDDEN = "??"


@dataclass(frozen=True, slots=True)
class View:
    """A player's view: every face-up card and nothing else.

    ``piles`` maps each pile name except the stock, in canonical order, to its
    cards bottom first: a text code, or None for a card the player may not see
    (a face-down tableau card). The stock is only its count.
    """

    game_id: str
    piles: tuple[tuple[str, tuple[str | None, ...]], ...]
    stock: int
    cards_home: int
    total: int

    def pile(self, name: str) -> tuple[str | None, ...]:
        for n, cards in self.piles:
            if n == name:
                return cards
        raise KeyError(name)

    @property
    def won(self) -> bool:
        return self.cards_home == self.total

    def to_text(self) -> str:
        cards = dict(self.piles)
        parts = [self.game_id]
        for name in GAMES[self.game_id].pile_names:
            if name == "s":
                parts.append(f"s:#{self.stock}")
            else:
                parts.append(name + ":" + "".join(HIDDEN if c is None else c for c in cards[name]))
        return " ".join(parts)
