"""Static evaluation of a visible game, one function per game.

Every function reads only what the player sees: face-up cards (a pile's cards
above its face-down count), face-down *counts*, and the stock's *count*. It
never reads a face-down card or the stock's cards (they are filler in a
visible game, see board.py). Higher is better; one card home is worth
``HOME`` and the other terms are smaller corrections, so playing a card home
is almost always worth it, but the search can tell two such moves apart.

``DRAW_DELTA[game]`` is what a ``draw`` is worth relative to the position it
is played from. A draw's outcome is unknown, so it is never evaluated on the
board it would make (that would read a filler card): its value is fixed.
"""
from __future__ import annotations

from collections.abc import Callable

from protocol.rules.cards import RANK
from protocol.rules.engine import Game
from protocol.rules.games import ANY, GAMES, PAIR

HOME = 10.0

# Waste: a one-pass stock means each card buried in the waste is only playable
# again after everything above it has left; the deeper the waste, the likelier
# a lost game.
WASTE = 2.0
# An empty single-card tableau pile is a free cell (Double Aces and Kings, and
# Racing Aces once the stock is out).
CELL = 3.0
# Distinct ranks that some foundation would take now: more targets, more cards
# that can come home without rearranging.
COVER = 0.6
# Fours Up / Rouge et Noir tableau.
EMPTY = 4.0  # an empty pile takes any card or run (a K-led run in Rouge et Noir)
BURY = 1.0  # a face-up card below the top run: out of reach until that run moves
DOWN = 6.0  # Rouge et Noir: a face-down card
# Fours Up (tuned on 20-60 deals, see docs/bots.md): the waste is the main way
# to lose, so a waste card costs more than an empty pile is worth (the bot
# then parks high cards on empty piles rather than bury them); a pile topped
# by A..4 takes nothing and is dead until that card goes home, which for
# A, 2, 3 means after the suit's K.
FU_WASTE = 4.0
FU_EMPTY = 2.0
LOW_TOP = 4.0


def _wanted_ranks(gdef) -> list[tuple[int, ...] | None]:
    """Per foundation pile: the rank it wants on each top face (0 = none), and
    at index 52 the rank it wants when empty; None for other piles. Precomputed
    because the search evaluates hundreds of thousands of positions."""
    out: list[tuple[int, ...] | None] = [None] * len(gdef.piles)
    for d in gdef.found_idx:
        empty = gdef.acc_empty[d]
        row = [RANK[faces[0]] if faces else 0 for faces in gdef.acc_top[d]]
        row.append(RANK[empty[0]] if empty and empty is not PAIR and empty is not ANY else 0)
        out[d] = tuple(row)
    return out


_WANTED = {gid: _wanted_ranks(gdef) for gid, gdef in GAMES.items()}


def _cover(g: Game) -> int:
    """How many distinct ranks the foundations accept right now."""
    wanted = _WANTED[g.game.id]
    piles = g.piles
    ranks = {wanted[d][piles[d][-1] if piles[d] else 52] for d in g.game.found_idx}  # type: ignore[index]
    ranks.discard(0)
    return len(ranks)


def eval_aces(g: Game) -> float:
    """Racing Aces and Double Aces and Kings."""
    gdef = g.game
    piles = g.piles
    v = HOME * g.cards_home
    v -= WASTE * len(piles[gdef.waste_idx])  # type: ignore[index]
    # While Racing Aces has a stock, tableau cards are refilled and may not be
    # chosen freely (nor does a reserve card go there): they are simply cards
    # waiting to go home, and the card a refill brings is unknown, so they are
    # left out. Otherwise empty tableau piles are free cells.
    if not gdef.refill or not piles[gdef.stock_idx]:
        v += CELL * sum(1 for t in gdef.tab_idx if not piles[t])
    v += COVER * _cover(g)
    return v


def _top_run_start(g: Game, t: int) -> int:
    """Index of the bottom card of pile t's top run (face-up cards only)."""
    p = g.piles[t]
    acc = g.game.acc_top[t]
    lowest = g.down[t]
    i = len(p) - 1
    while i > lowest and p[i] in acc[p[i - 1]]:
        i -= 1
    return i


def eval_fours_up(g: Game) -> float:
    gdef = g.game
    piles = g.piles
    v = HOME * g.cards_home
    v -= FU_WASTE * len(piles[gdef.waste_idx])  # type: ignore[index]
    for t in gdef.tab_idx:
        p = piles[t]
        if not p:
            v += FU_EMPTY
            continue
        v -= BURY * _top_run_start(g, t)
        if RANK[p[-1]] <= 4:
            v -= LOW_TOP
    return v


def eval_rouge_et_noir(g: Game) -> float:
    gdef = g.game
    piles = g.piles
    down = g.down
    v = HOME * g.cards_home
    for t in gdef.tab_idx:
        p = piles[t]
        if not p:
            v += EMPTY
            continue
        d = down[t]
        v -= DOWN * d
        # Only face-up cards below the top run are buried; a card that was
        # just flipped is the whole top run, so its (unknown) face never counts.
        v -= BURY * (_top_run_start(g, t) - d)
    return v


EVALUATE: dict[str, Callable[[Game], float]] = {
    "racing-aces": eval_aces,
    "double-aces-and-kings": eval_aces,
    "fours-up": eval_fours_up,
    "rouge-et-noir": eval_rouge_et_noir,
}

# A draw buries the waste top (one card more in the waste), or in Rouge et
# Noir covers the top of every tableau pile.
DRAW_DELTA: dict[str, float] = {
    "racing-aces": -WASTE,
    "double-aces-and-kings": -WASTE,
    "fours-up": -FU_WASTE,
    "rouge-et-noir": -5 * BURY,
}
