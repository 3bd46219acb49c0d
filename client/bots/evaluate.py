"""Static evaluation of a visible game, one function per game.

Every function reads only what the player sees: face-up cards (a pile's cards
above its face-down count), face-down *counts*, and the stock's *count*. It
never reads a face-down card or the stock's cards (they are filler in a
visible game, see board.py). Higher is better; one card home is worth
``HOME`` and the other terms are smaller corrections, so playing a card home
is almost always worth it, but the search can tell two such moves apart.

``DRAW_VALUE[game]`` is what a ``draw`` is worth from a position. A draw's
outcome is unknown, so it is never evaluated on the board it would make (that
would read a filler card): its value is a fixed cost, or an expectation over
the unseen cards (counted from the face-up ones, board.unseen_counts), which
is what the player knows about the card(s) a draw turns up.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.rules.cards import RANK
from protocol.rules.engine import Game
from protocol.rules.games import GAMES, GameDef

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
WALL = 0.0  # per waste card, per A/2/3 above it (up to WALL_CAP); 1 and 2 measured worse
WALL_CAP = 1
# Rouge et Noir runs: per card on a top run above its bottom card, and more
# when the run is led by a K (a sequence in the making).
RUN = 1.0
KRUN = 3.0


def _wanted_ranks(gdef: GameDef) -> list[tuple[int, ...]]:
    """Per foundation pile: the rank it wants on each top face (0 = none), and
    at index 52 the rank it wants when empty; () for other piles. Precomputed
    because the search evaluates hundreds of thousands of positions."""
    out: list[tuple[int, ...]] = [()] * len(gdef.piles)
    for d in gdef.found_idx:
        empty = gdef.acc_empty[d]
        row = [RANK[faces[0]] if faces else 0 for faces in gdef.acc_top[d]]
        # (an empty colour foundation counts as wanting nothing: which aces it
        # takes depends on its partner, see the pair rule)
        row.append(RANK[empty[0]] if empty else 0)
        out[d] = tuple(row)
    return out


_WANTED = {gid: _wanted_ranks(gdef) for gid, gdef in GAMES.items()}


def _cover(g: Game) -> int:
    """How many distinct ranks the foundations accept right now."""
    wanted = _WANTED[g.game.id]
    piles = g.piles
    ranks = {wanted[d][piles[d][-1] if piles[d] else 52] for d in g.game.found_idx}
    ranks.discard(0)
    return len(ranks)


def eval_aces(g: Game) -> float:
    """Racing Aces and Double Aces and Kings."""
    gdef = g.game
    piles = g.piles
    v = HOME * g.cards_home
    waste = gdef.waste_idx
    v -= WASTE * (len(piles[waste]) if waste is not None else 0)
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
    """Fours Up. Every tableau pile is one descending run (cards only ever go
    onto a card one higher), so nothing is buried there. The waste is where
    games are lost: A, 2 and 3 go onto no card and home only after their
    suit's K, so one of them in the waste walls in every card below it for a
    long time; a card costs more the more walls lie above it (capped)."""
    gdef = g.game
    piles = g.piles
    v = HOME * g.cards_home
    waste = piles[gdef.waste_idx] if gdef.waste_idx is not None else []
    v -= FU_WASTE * len(waste)
    walls = 0
    for i in range(len(waste) - 1, -1, -1):
        if walls:
            v -= WALL * (walls if walls < WALL_CAP else WALL_CAP)
        if RANK[waste[i]] <= 3:
            walls += 1
    for t in gdef.tab_idx:
        p = piles[t]
        if not p:
            v += FU_EMPTY
        elif RANK[p[-1]] <= 4:
            v -= LOW_TOP
    return v


def draw_fours_up(g: Game, value: float, unseen: list[int], n: int) -> float:
    """Expected value after a draw: the card is uniform over the unseen ones
    (the stock, in Fours Up); it goes home, onto a tableau top, onto an empty
    pile, or stays on the waste (a low card there walls in the free cards)."""
    gdef = g.game
    piles = g.piles
    home = bytearray(52)
    tab = bytearray(52)
    acc_top = gdef.acc_top
    for d in gdef.found_idx:
        p = piles[d]
        if p:
            for f in acc_top[d][p[-1]]:
                home[f] = 1
    empty = False
    for t in gdef.tab_idx:
        p = piles[t]
        if p:
            for f in acc_top[t][p[-1]]:
                tab[f] = 1
        else:
            empty = True
    waste = piles[gdef.waste_idx] if gdef.waste_idx is not None else []
    free = 0
    for i in range(len(waste) - 1, -1, -1):
        if RANK[waste[i]] <= 3:
            break
        free += 1
    high_stay = -FU_WASTE
    low_stay = -FU_WASTE - WALL * free
    high_best = max(high_stay, -FU_EMPTY) if empty else high_stay
    low_best = max(low_stay, -FU_EMPTY - LOW_TOP) if empty else low_stay
    total = 0.0
    for f in range(52):
        c = unseen[f]
        if not c:
            continue
        if home[f]:
            total += c * HOME
        elif tab[f]:
            continue
        elif RANK[f] <= 3:
            total += c * low_best
        else:
            total += c * high_best
    return value + total / n if n else value


def eval_rouge_et_noir(g: Game) -> float:
    """Rouge et Noir: face-down cards, buried face-up cards, empty piles, and
    the top runs (each card on a run is a step towards a 13-card sequence
    foundation; a K-led run more so). A lone top card scores nothing by its
    face, so a card just flipped (filler in a visible game) never counts."""
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
        r = _top_run_start(g, t)
        v -= BURY * (r - d)
        run = len(p) - 1 - r
        if run:
            v += RUN * run
            if RANK[p[r]] == 13:
                v += KRUN * run
    return v


def draw_rouge_et_noir(g: Game, value: float, unseen: list[int], n: int) -> float:
    """Expected value after a draw: one unseen card onto each of the first
    piles; on a pile it extends the top run if it fits, else buries it."""
    gdef = g.game
    piles = g.piles
    acc_top = gdef.acc_top
    delta = 0.0
    stock = len(piles[gdef.stock_idx])
    for t in gdef.tab_idx[:stock]:
        p = piles[t]
        if not p:
            delta -= EMPTY
            continue
        r = _top_run_start(g, t)
        run = len(p) - 1 - r
        kled = RANK[p[r]] == 13
        q = sum(unseen[f] for f in acc_top[t][p[-1]]) / n if n else 0.0
        fit = RUN + (KRUN if kled else 0.0)
        miss = -BURY * (run + 1) - run * (RUN + (KRUN if kled else 0.0))
        delta += q * fit + (1 - q) * miss
    return value + delta


def draw_aces(gid: str) -> Callable[[Game, float, list[int], int], float]:
    delta = -WASTE

    def draw(g: Game, value: float, unseen: list[int], n: int) -> float:
        return value + delta

    return draw


EVALUATE: dict[str, Callable[[Game], float]] = {
    "racing-aces": eval_aces,
    "double-aces-and-kings": eval_aces,
    "fours-up": eval_fours_up,
    "rouge-et-noir": eval_rouge_et_noir,
}

# The value of a ``draw`` from a position of value ``value``, given the
# unseen cards (counts per face, and their total): in Racing Aces and Double
# Aces and Kings a fixed cost (one card more in the waste); in Fours Up and
# Rouge et Noir the expectation over the card(s) it may turn up.
DRAW_VALUE: dict[str, Callable[[Game, float, list[int], int], float]] = {
    "racing-aces": draw_aces("racing-aces"),
    "double-aces-and-kings": draw_aces("double-aces-and-kings"),
    "fours-up": draw_fours_up,
    "rouge-et-noir": draw_rouge_et_noir,
}
