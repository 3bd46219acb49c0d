"""A player's own board, kept up to date from acks without asking the server.

The server sends a player's view once (`start.view`, or `state.you.view`
after a resync) and then, per accepted move, only what the view *gained*: the
`revealed` list of the ack. The client applies the move itself:

1. `SRC>DST` / `SRC:K>DST`: move the top K cards of SRC onto DST (they are
   face up: only face-up cards move). `draw` moves nothing by itself.
2. Then place each revealed `(pile, card)`, in order:
   * if the pile's top is a face-down card (`None`), it is that card turning
     face up (a Rouge et Noir flip);
   * otherwise the card came from the stock and is put on top of the pile,
     and the stock shrinks by one: the card drawn to the waste, a Racing Aces
     refill, each card of a Rouge et Noir deal t0..t9.

This rests on one invariant of every game (docs/rules.md §4.6, §7.4): after a move, no
pile's top card is face down — a face-down card that becomes a top flips in
the same move. So "top is face down" can only mean "this is the flip".

`apply_move` is a pure function over `rules.View`; it raises `ViewMismatch`
when the move cannot apply (the local view is stale), in which case the
library resyncs. `Board` wraps it with the race's bookkeeping (`n`, home, …).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from protocol import rules
from protocol.rules import View

__all__ = ["Board", "NoView", "ViewMismatch", "apply_move", "apply_move_text"]

# docs/rules.md §1.3 notation. The server has already checked the move; this is
# only enough parsing to know which piles it touches.
_MOVE = re.compile(r"([a-z]+[0-9]*)(?::([0-9]+))?>([a-z]+[0-9]*)")


class ViewMismatch(ValueError):
    """The move or its revealed cards do not fit the local view: it is stale."""


def apply_move(view: View, move: str, revealed: Iterable[Sequence[str]]) -> View:
    """The view after `move`, given the cards it revealed (see module doc)."""
    # Only the piles the move touches are copied: this runs on every ack.
    piles = list(view.piles)
    index = _index(view)
    touched: dict[int, list[str | None]] = {}

    def cards_of(name: str) -> list[str | None]:
        i = index.get(name)
        if i is None:
            raise ViewMismatch(f"{move}: no pile {name!r} in {view.game_id}")
        cards = touched.get(i)
        if cards is None:
            cards = touched[i] = list(piles[i][1])
        return cards

    stock = view.stock
    if move != "draw":
        m = _MOVE.fullmatch(move)
        if m is None:
            raise ViewMismatch(f"not a move: {move!r}")
        src, kstr, dst = m.groups()
        k = int(kstr) if kstr else 1
        cards = cards_of(src)
        target = cards_of(dst)
        if len(cards) < k or None in cards[len(cards) - k :]:
            raise ViewMismatch(f"{move}: {src} has no {k} face-up cards")
        target.extend(cards[len(cards) - k :])
        del cards[len(cards) - k :]
    for pile, card in revealed:
        cards = cards_of(pile)
        if cards and cards[-1] is None:
            cards[-1] = card  # a face-down card turned face up
        else:
            if stock <= 0:
                raise ViewMismatch(f"revealed {card} on {pile} but the stock is empty")
            cards.append(card)  # dealt from the stock
            stock -= 1
    if move == "draw" and stock == view.stock:
        raise ViewMismatch("draw revealed nothing")
    home = view.cards_home
    for i, cards in touched.items():
        name, old = piles[i]
        if name[0] == "f":
            home += len(cards) - len(old)
        piles[i] = (name, tuple(cards))
    return View(view.game_id, tuple(piles), stock, home, view.total)


_INDEX_CACHE: dict[str, dict[str, int]] = {}


def _index(view: View) -> dict[str, int]:
    """Pile name -> position in `view.piles`, cached per game (a fixed layout)."""
    index = _INDEX_CACHE.get(view.game_id)
    if index is None or len(index) != len(view.piles):
        index = {name: i for i, (name, _) in enumerate(view.piles)}
        _INDEX_CACHE[view.game_id] = index
    return index


def apply_move_text(view_text: str, move: str, revealed: Iterable[Sequence[str]]) -> str:
    """`apply_move` over view texts (docs/rules.md §7.3)."""
    return apply_move(rules.view_from_text(view_text), move, revealed).to_text()


class NoView(RuntimeError):
    """Asked for a board's view before the race started for this player: wait for its
    `start` (or check `Board.has_view`) first. A mistake in the caller."""


@dataclass
class Board:
    """One race as this player sees it: their own view and move count.

    `view` is there from the race's start for this player on (`has_view`); asked
    before, it raises `NoView`. `n` is the move count the server has acknowledged;
    `pending` is the move sent and not yet acknowledged (resent after a reconnect
    with the same `n`).
    """

    race: str
    n: int = 0
    home: int = 0
    total: int = 0
    status: str = "waiting"
    won: bool = False
    legal: list[str] | None = None  # only when the server sent it (view=True, resync)
    pending: tuple[int, str] | None = None  # (n, move) in flight
    history: list[str] = field(default_factory=list)  # moves acknowledged, in order
    _view: View | None = field(default=None, init=False)

    @property
    def has_view(self) -> bool:
        """Whether the race has started for this player: `view` is there."""
        return self._view is not None

    @property
    def view(self) -> View:
        """This player's view of the race, kept up to date (`NoView` before the start)."""
        if self._view is None:
            raise NoView(f"race {self.race} has not started for this player: no view yet")
        return self._view

    @property
    def view_text(self) -> str:
        """`view` as text (docs/rules.md §7.3)."""
        return self.view.to_text()

    def reset(
        self,
        view_text: str,
        n: int,
        *,
        home: int | None = None,
        status: str | None = None,
        legal: list[str] | None = None,
    ) -> None:
        """Adopt the server's view (start, resync): the truth replaces ours."""
        view = self._view = rules.view_from_text(view_text)
        self.n = n
        self.home = view.cards_home if home is None else home
        self.total = view.total
        self.won = view.won
        if status is not None:
            self.status = status
        self.legal = legal

    def apply_ack(
        self,
        move: str,
        n: int,
        revealed: Iterable[Sequence[str]],
        *,
        home: int,
        won: bool,
        status: str,
        view_text: str | None = None,
        legal: list[str] | None = None,
    ) -> None:
        """Apply an acknowledged move; a server `view` (if sent) is checked and wins."""
        if self._view is None:
            raise ViewMismatch("ack before the start")
        if n != self.n + 1:
            raise ViewMismatch(f"ack for move {n} but the board is at {self.n}")
        new = apply_move(self._view, move, revealed)
        if new.cards_home != home:
            raise ViewMismatch(f"home {new.cards_home} locally, {home} on the server")
        if view_text is not None and new.to_text() != view_text:
            raise ViewMismatch(f"view differs after {move}: {new.to_text()} != {view_text}")
        self._view = new
        self.n = n
        self.home = home
        self.won = won
        self.status = status
        self.legal = legal
        self.history.append(move)
