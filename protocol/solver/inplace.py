"""Playing a legal move on a position in place, and taking it back.

The searches look at every child of a position (its key, whether it is won)
but keep only the few they have not seen; copying the position for each child
and playing through the engine's checked ``Game._play`` cost more than keying
it. So they play the move on the position itself, key it, and take the move
back unless they keep the child.

``play`` does what ``Game._play`` does to a position (tests/solver checks
them against each other move by move) without checking the move: the moves
come from ``legal_moves``, so they are legal. It returns what ``unplay``
needs besides the move: how many cards a ``draw`` dealt, or whether the move
turned a face-down card up or refilled the emptied pile from the stock.
``cards_home`` is restored by ``unplay`` from the move alone.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.rules.engine import Game
from protocol.rules.games import DRAW, GameDef, Parsed

#: ``play``'s answer for a move that did nothing more than move its cards.
PLAIN = 0
#: ... that turned the source's new top card face up.
TURNED = 1
#: ... that refilled the emptied source from the stock (Racing Aces).
REFILLED = 2

Play = Callable[[Game, Parsed], int]
Unplay = Callable[[Game, Parsed, int], None]

_MOVERS: dict[str, tuple[Play, Unplay]] = {}


def movers(game: GameDef) -> tuple[Play, Unplay]:
    """(play, unplay) for positions of ``game``."""
    pair = _MOVERS.get(game.id)
    if pair is None:
        pair = _MOVERS[game.id] = _build(game)
    return pair


def _build(game: GameDef) -> tuple[Play, Unplay]:
    stock_idx = game.stock_idx
    waste_idx = game.waste_idx
    tab_idx = game.tab_idx
    draw_to_tableau = game.draw_to_tableau
    refill = game.refill
    is_tab = game.is_tab
    n = len(game.piles)
    # Cards home gained by moving one card from s to d.
    home = [[int(game.is_found[d]) - int(game.is_found[s]) for d in range(n)] for s in range(n)]

    def play(g: Game, parsed: Parsed) -> int:
        piles = g.piles
        if parsed == DRAW:
            stock = piles[stock_idx]
            if draw_to_tableau:
                dealt = 0
                for t in tab_idx:
                    if not stock:
                        break
                    piles[t].append(stock.pop())
                    dealt += 1
                return dealt
            piles[waste_idx].append(stock.pop())  # type: ignore[index]
            return 1
        s, k, d = parsed
        sp = piles[s]
        if k == 1:
            piles[d].append(sp.pop())
        else:
            cut = len(sp) - k
            piles[d].extend(sp[cut:])
            del sp[cut:]
        g.cards_home += k * home[s][d]
        if sp:
            down = g.down
            dn = down[s]
            if dn and dn == len(sp):
                down[s] = dn - 1
                return TURNED
        elif refill and is_tab[s]:
            stock = piles[stock_idx]
            if stock:
                sp.append(stock.pop())
                return REFILLED
        return PLAIN

    def unplay(g: Game, parsed: Parsed, done: int) -> None:
        piles = g.piles
        if parsed == DRAW:
            stock = piles[stock_idx]
            if draw_to_tableau:
                for t in reversed(tab_idx[:done]):
                    stock.append(piles[t].pop())
            else:
                stock.append(piles[waste_idx].pop())  # type: ignore[index]
            return
        s, k, d = parsed
        sp = piles[s]
        if done == TURNED:
            g.down[s] += 1
        elif done == REFILLED:
            piles[stock_idx].append(sp.pop())
        dp = piles[d]
        if k == 1:
            sp.append(dp.pop())
        else:
            cut = len(dp) - k
            sp.extend(dp[cut:])
            del dp[cut:]
        g.cards_home -= k * home[s][d]

    return play, unplay
