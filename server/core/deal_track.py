"""A player's game with each card numbered by its place in the shared deal: what the
spectator boards (spectators.py) hide by, kept per player in the race's room (room.py)."""

from __future__ import annotations

from protocol.rules import Game
from protocol.rules.games import DRAW


class DealTrack:
    """One player's game, with each card numbered by its place in the deal (the order of
    `game.piles` as dealt): which cards of the shared deal the player has seen, and which
    card of the deal each card on their board is. `play` mirrors the engine's moves (a draw,
    a move of the top cards, a refill from the stock; a flip moves nothing)."""

    __slots__ = ("game", "places", "n")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.places: list[list[int]] = []
        k = 0
        for p in game.piles:
            self.places.append(list(range(k, k + len(p))))
            k += len(p)
        self.n = 0  # moves played

    def play(self, move: str) -> None:
        """Play a legal move (IllegalMove, nothing changed, if it is not)."""
        g = self.game
        gdef = g.game
        parsed = gdef.parse_move(move)
        g.play(move)
        places = self.places
        stock = places[gdef.stock_idx]
        if parsed == DRAW:
            if gdef.draw_to_tableau:
                for t in gdef.tab_idx:
                    if not stock:
                        break
                    places[t].append(stock.pop())
            else:
                assert gdef.waste_idx is not None
                places[gdef.waste_idx].append(stock.pop())
        else:
            src, k, dst = parsed
            sp = places[src]
            cut = len(sp) - k
            places[dst].extend(sp[cut:])
            del sp[cut:]
            if not sp and gdef.refill and gdef.is_tab[src] and stock:
                sp.append(stock.pop())
        self.n += 1

    def unseen(self) -> set[int]:
        """The places of the deal this player has not seen: their stock and face-down cards."""
        g = self.game
        out = set(self.places[g.game.stock_idx])
        for i, d in enumerate(g.down):
            if d:
                out.update(self.places[i][:d])
        return out
