"""The solver's "lost" (and "won") verdicts against the truth, on small positions
of every game, winnable and lost alike.

test_solver.py checks the solver on endgames that are nearly all winnable, so
a canonical key that merges two positions the rules do tell apart, or a
pruned move that was the only way to a win, would show there only as a lost
win. Here a generator builds many small positions, a good share of them lost,
and each verdict is checked against the truth:

* "won": the solver's line is played through the engine and must win (a
  proof of the truth, whatever the position's size);
* "lost": an exhaustive search that shares nothing with the solver (a plain
  depth-first search over the engine's ``legal_moves()``, ``play`` and
  ``to_text()``, with a visited set of position texts) must find no won
  position; a position with more reachable positions than ``CAP`` is skipped;
* "unknown": only when the node budget ran out.

The hint (``best_move``, docs/protocol.md ``hint``) never claims a win: it
returns the first move of the best line it found from what the player sees,
or None when no move helps. So for a lost position it may well name a move;
what is checked is that it names a legal one, and that None comes only where
the truth agrees that no move helps: a winnable position always has a first
move that leads somewhere (its winning line's), so None there would be wrong.

The positions start from the won position (every card home) with the top
cards of a few foundations taken back out. How they are laid out decides
whether the position can be lost and whether its space is small enough to
list: in Racing Aces and Double Aces and Kings one free tableau pile lets
every foundation top wander through it (thousands of positions that the
solver's key counts as one), so the lost positions there keep every tableau
pile filled with cards that wait behind a card buried in a stack. Most lost
positions found this way are small (the solver proves them in a few
positions); lost positions whose space is too big to list are counted and
skipped. Rouge et Noir gets no lost position yet (MIN_CHECKED).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from solver_helpers import exhaustive

from protocol import rules
from protocol.rules.cards import CODE, RANK, RED
from protocol.rules.engine import Game
from protocol.solver import best_move, solve

#: Positions the exhaustive search may list before it gives up on one.
CAP = 800
#: The solver's budget: far more than any position kept here needs.
NODES = 10_000
#: Candidate positions per game (a fixed seed: always the same positions).
CANDIDATES = 90


# -- the truth ---------------------------------------------------------------


def reachable_win(g: Game, cap: int = CAP) -> bool | None:
    """Is a won position reachable from ``g``? None if more than ``cap`` positions are."""
    return exhaustive(g, cap)


def replays_to_a_win(g: Game, line: tuple[str, ...]) -> bool:
    g = g.copy()
    for move in line:
        assert not g.won, "the line goes on after the win"
        g.play(move)  # IllegalMove if the line is not legal
    return g.won


# -- the positions -------------------------------------------------------------


def won_layout(game_id: str, rng: random.Random) -> dict[str, list[int]]:
    """Every pile of the won position of ``game_id`` (faces, bottom first):
    the foundations full, their suits drawn at random where the rules allow
    a choice (any suit in the rank games, either suit of a colour in Rouge et
    Noir), every other pile empty."""
    gdef = rules.GAMES[game_id]
    piles: dict[str, list[int]] = {name: [] for name in gdef.pile_names}
    if game_id == "fours-up":
        suits = [0, 1, 2, 3] * 2
        rng.shuffle(suits)
        for i, suit in enumerate(suits):
            piles[f"f{i}"] = [suit * 13 + (rank - 1) % 13 for rank in range(4, 17)]
        return piles
    # The cards of each (rank, colour), every copy, in random order.
    pool: dict[tuple[int, int], list[int]] = {}
    for f in range(52):
        pool.setdefault((RANK[f], RED[f]), []).extend([f] * gdef.decks)
    for cards in pool.values():
        rng.shuffle(cards)
    if game_id == "rouge-et-noir":
        colours = [1, 0, 0, 1] if rng.random() < 0.5 else [0, 1, 1, 0]  # the pair rule
        for i, red in enumerate(colours):
            piles[f"f{i}"] = [pool[(rank, red)].pop() for rank in range(1, 14)]
        # Two runs from a black K, two from a red one.
        for i, king_red in zip(rng.sample(range(4, 8), 4), [0, 0, 1, 1]):
            piles[f"f{i}"] = [pool[(rank, (king_red + 13 - rank) % 2)].pop() for rank in range(13, 0, -1)]
        return piles
    for i in gdef.found_idx:
        pile = gdef.piles[i]
        rank = pile.start
        while 1 <= rank <= 13:
            red = rng.choice([c for c in (0, 1) if pool[(rank, c)]])
            piles[gdef.pile_names[i]].append(pool[(rank, red)].pop())
            rank += pile.step
    return piles


def position_text(game_id: str, piles: dict[str, list[int]], down: dict[str, int]) -> str:
    gdef = rules.GAMES[game_id]
    parts = [game_id]
    for name in gdef.pile_names:
        d = down.get(name, 0)
        parts.append(
            name + ":" + "".join(("~" if n < d else "") + CODE[f] for n, f in enumerate(piles[name]))
        )
    return " ".join(parts)


def take_tops(piles: dict[str, list[int]], sources: list[str], n: int, rng: random.Random) -> list[int]:
    """Up to ``n`` top cards off the ``sources`` (in turn at random): the
    first one taken is the last one its foundation needs back."""
    out: list[int] = []
    for _ in range(n):
        full = [s for s in sources if piles[s]]
        if not full:
            break
        out.append(piles[rng.choice(full)].pop())
    return out


def bury(piles: dict[str, list[int]], chain: list[int], stacks: list[str], rng: random.Random) -> None:
    """The first card ``chain`` needs at the bottom of a stack, under the rest
    of ``chain`` (one of them at least right on top of it)."""
    first, *rest = reversed(chain)
    under = rng.choice(stacks)
    piles[under][:0] = [first, *rest[:1]]
    for card in rest[1:]:
        piles[rng.choice(stacks)].append(card)


def unwinding(piles: dict[str, list[int]], chain: list[int], stacks: list[str], rng: random.Random) -> None:
    """``chain`` (as ``take_tops`` gave it) onto the stacks so that each
    stack's cards of it come off in the order their foundation takes them."""
    for card in chain:
        piles[rng.choice(stacks)].append(card)


def cells_position(game_id: str, rng: random.Random) -> str:
    """Racing Aces, Double Aces and Kings (one-card tableau piles)."""
    gdef = rules.GAMES[game_id]
    piles = won_layout(game_id, rng)
    names = gdef.pile_names
    found = [n for n in names if n.startswith("f")]
    tabs = [n for n in names if n.startswith("t")]
    stacks = [n for n in names if n[0] in "rw"]
    if rng.random() < 0.6:
        # Meant to be lost: every tableau pile holds a card of one chain that
        # waits for the first card the chain needs, buried in a stack (a free
        # pile would let every foundation's top wander through it: more
        # positions than the exhaustive search can list). Other foundations'
        # cards come off the stacks in an order they can go home in.
        source = rng.choice([n for n in found if len(piles[n]) == 13])
        chain = take_tops(piles, [source], len(tabs) + rng.randint(2, 4), rng)
        for t, card in zip(tabs, chain):
            piles[t].append(card)
        bury(piles, chain[len(tabs) :], stacks, rng)
        # No card the chain needs goes to another foundation, nor comes from
        # one: the others give back ranks the chain has none of.
        ranks = {RANK[c] for c in chain}
        for other in rng.sample([n for n in found if n != source], 4):
            k = rng.randint(1, 5)
            if piles[other] and not ranks & {RANK[c] for c in piles[other][-k:]}:
                unwinding(piles, take_tops(piles, [other], k, rng), stacks, rng)
        loose = []
    else:
        # Mostly winnable: the latest cards in the tableau (one pile may stay
        # free), the rest in the stacks and the stock.
        sources = rng.sample(found, rng.choice([1, 1, 2]))
        n_tab = len(tabs) - rng.choice([0, 0, 0, 1])
        loose = take_tops(piles, sources, n_tab + rng.randint(2, 6), rng)
        for t, card in zip(rng.sample(tabs, n_tab), loose[:n_tab]):
            piles[t].append(card)
        loose = loose[n_tab:]
    rng.shuffle(loose)
    n_stock = rng.choice([0, 0, 1, 2, 3])
    piles["s"] = loose[:n_stock]
    for card in loose[n_stock:]:
        piles[rng.choice(stacks)].append(card)
    return position_text(game_id, piles, {})


def fits(pile: list[int], card: int) -> bool:
    """May ``card`` lie on ``pile`` in Fours Up's tableau?"""
    return not pile or (RANK[pile[-1]] >= 5 and RANK[card] == RANK[pile[-1]] - 1)


def fours_up_position(rng: random.Random) -> str:
    gdef = rules.GAMES["fours-up"]
    piles = won_layout("fours-up", rng)
    found = [n for n in gdef.pile_names if n.startswith("f")]
    tabs = [n for n in gdef.pile_names if n.startswith("t")]
    if rng.random() < 0.6:
        # Meant to be lost (often): each foundation stops at K, A or 3
        # (full), and the few cards left over (A, 2 and 3,
        # which no tableau card takes) are dealt out at random, one to a
        # tableau pile, the rest onto the waste and the stock.
        suits = [0, 1, 2, 3] * 2
        rng.shuffle(suits)
        loose = []
        for i, suit in enumerate(suits):
            top = rng.choice([10, 10, 11, 13])  # K, K, A, 3 (the 10th, 11th, 13th card)
            whole = [suit * 13 + (rank - 1) % 13 for rank in range(4, 17)]
            piles[found[i]] = whole[:top]
            loose += whole[top:]
        # The ones needed last (3s, then 2s) to the tableau, mostly.
        loose.sort(key=lambda c: (RANK[c] % 13) + 3 * rng.random())
        for t in tabs:
            if loose:
                piles[t].append(loose.pop())
        rng.shuffle(loose)
    else:
        sources = rng.sample(found, rng.choice([1, 2, 2, 3]))
        loose = []
        cards = take_tops(piles, sources, rng.randint(6, 12), rng)
        rng.shuffle(cards)
        for card in cards:
            empty = [t for t in tabs if not piles[t]]
            onto = [t for t in tabs if piles[t] and fits(piles[t], card)]
            if empty and rng.random() < 0.9:
                piles[rng.choice(empty)].append(card)
            elif onto and rng.random() < 0.7:
                piles[rng.choice(onto)].append(card)
            else:
                loose.append(card)
    n_stock = rng.choice([0, 0, 1, 2, 3])
    piles["s"] = loose[:n_stock]
    piles["w"] += loose[n_stock:]
    return position_text("fours-up", piles, {})


def rouge_et_noir_position(rng: random.Random) -> str:
    gdef = rules.GAMES["rouge-et-noir"]
    piles = won_layout("rouge-et-noir", rng)
    tabs = [n for n in gdef.pile_names if n.startswith("t")]
    colour = ["f0", "f1", "f2", "f3"]
    down: dict[str, int] = {}
    # Pieces for the tableau: single cards off colour foundations, and a
    # sequence run cut into short runs.
    pieces: list[list[int]] = []
    order = rng.sample(tabs, len(tabs))
    if rng.random() < 0.6:
        # Aimed at a loss: the first card a colour foundation needs lies
        # face down under that foundation's K, and every other tableau pile
        # holds something (an empty one would take the K). So far the runs
        # and colour-foundation tops still get the K moved: no position of
        # this kind at the test's seed is lost (see MIN_CHECKED).
        source = rng.choice(colour)
        chain = take_tops(piles, [source], rng.randint(4, 9), rng)
        first = chain.pop()
        under = rng.choice([t for t in tabs if gdef.max_down[gdef.index[t]]])
        piles[under] = [first, chain.pop(0)]
        down[under] = 1
        order.remove(under)
        pieces += [[c] for c in chain]
        pieces += [
            [c]
            for c in take_tops(
                piles, rng.sample([c for c in colour if c != source], 1), rng.randint(0, 4), rng
            )
        ]
    else:
        pieces += [
            [c] for c in take_tops(piles, rng.sample(colour, rng.randint(1, 2)), rng.randint(2, 7), rng)
        ]
    for f in rng.sample(["f4", "f5", "f6", "f7"], rng.choice([0, 1, 1])):
        run, piles[f] = piles[f], []
        while run:
            k = rng.randint(1, 5)
            pieces.append(run[:k])
            run = run[k:]
    rng.shuffle(pieces)
    n_stock = rng.choice([0, 0, 0, 2, 4])
    while len(piles["s"]) < n_stock and len(pieces) > len(order):
        piles["s"] += pieces.pop()
    for n, piece in enumerate(pieces):
        piles[order[n] if n < len(order) else rng.choice(order)] += piece
    for i, t in zip(gdef.tab_idx, tabs):
        most = min(gdef.max_down[i], len(piles[t]) - 1)
        if t not in down and most > 0 and rng.random() < 0.6:
            down[t] = rng.randint(1, most)
    return position_text("rouge-et-noir", piles, down)


def position(game_id: str, rng: random.Random) -> Game | None:
    if game_id == "fours-up":
        text = fours_up_position(rng)
    elif game_id == "rouge-et-noir":
        text = rouge_et_noir_position(rng)
    else:
        text = cells_position(game_id, rng)
    try:
        return rules.from_text(text)
    except rules.PositionError:
        return None  # e.g. a pair rule the layout broke


# -- the test --------------------------------------------------------------------

#: (won, lost) verdicts each game's positions must include at least, the
#: lost ones confirmed by the exhaustive search: the generator's job. At the
#: fixed seeds (won / lost / lost but too big to list / unknown): Racing Aces
#: 58/10/22/0, Double Aces and Kings 57/24/8/0, Fours Up 81/5/2/1, Rouge et
#: Noir 89/0/0/0 (its layouts here are all winnable: a lost one needs more
#: blocking than they have).
MIN_CHECKED = {
    "racing-aces": (40, 5),
    "double-aces-and-kings": (40, 15),
    "fours-up": (50, 3),
    "rouge-et-noir": (50, 0),
}


def check_hint(g: Game, truth: bool | None) -> None:
    """The hint from the player's view: a legal move or None; None only when
    no move helps, so never where the position can still be won."""
    hint = best_move(g.view_text())
    if hint is None:
        assert truth is not True, f"hint None in a winnable position: {g.to_text()}"
        return
    assert g.is_legal(hint), (hint, g.to_text())
    after = g.copy()
    after.play(hint)
    if truth is False:
        assert not after.won


@pytest.mark.parametrize("game", list(rules.GAMES))
def test_verdicts_never_contradict_the_truth(game: str) -> None:
    rng = random.Random(f"lost-verdicts/{game}")
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    for _ in range(CANDIDATES):
        g = position(game, rng)
        if g is None or g.won:
            continue
        text = g.to_text()
        if text in seen:
            continue
        seen.add(text)
        result = solve(g, nodes=NODES)
        assert g.to_text() == text, "solve must not change its argument"
        truth: bool | None
        if result.status == "won":
            assert replays_to_a_win(g, result.line), text
            truth = True
        elif result.status == "lost":
            assert result.line == ()
            truth = reachable_win(g)
            assert truth is not True, f"proved lost, but a win is reachable: {text}"
        else:
            assert result.nodes >= NODES, f"unknown within the budget: {text}"
            truth = None
        counts[{True: "won", False: "lost", None: result.status + "-unchecked"}[truth]] += 1
        # Hints cost more than the rest: every lost position's, a few others.
        if truth is False or len(seen) % 5 == 0:
            check_hint(g, truth)
    won, lost = MIN_CHECKED[game]
    assert counts["won"] >= won and counts["lost"] >= lost, counts
