"""Small endgames for solver tests, and an independent exhaustive search.

An endgame starts from the game's won position (every card home) and takes
the top cards of some foundations back out, scattering them over the piles
where a single card may lie (the stock, the waste, reserves, empty tableau
piles). The result goes through ``rules.from_text``, so it is a position the
engine accepts. With a handful of cards out, every reachable position can be
listed, which is what ``exhaustive`` does: a plain depth-first search over
``to_text()`` strings and every legal move in the engine's order, sharing
nothing with the solver (no canonical key, no ordering, no pruning).
"""

from __future__ import annotations

import random

from protocol import rules
from protocol.rules.engine import Game

RANKS = "A23456789TJQK"


def run(first: str, last: str, suits: str) -> str:
    """Codes from rank ``first`` to ``last`` (either direction), suits cycling."""
    a, b = RANKS.index(first), RANKS.index(last)
    step = 1 if b >= a else -1
    return "".join(RANKS[r] + suits[n % len(suits)] for n, r in enumerate(range(a, b + step, step)))


FOURS_UP_RANKS = "456789TJQKA23"


def fours_up_pile(suit: str) -> str:
    return "".join(r + suit for r in FOURS_UP_RANKS)


def fours_up_foundations(tops: str) -> str:
    """The eight Fours Up foundations (clubs, diamonds, hearts, spades, twice), each built from its
    4 up to the rank that ``tops`` gives it, in the text of ``rules.from_text``:
    ``fours_up_foundations("KAA3KA3K")`` is ``f0:4c…Kc f1:4d…Ad … f7:4s…Ks``."""
    assert len(tops) == 8
    return won_foundations(
        "fours-up", **{f"f{i}": FOURS_UP_RANKS.index(top) + 1 for i, top in enumerate(tops)}
    )


def won_piles(game_id: str) -> dict[str, str]:
    """The foundations of a won position of ``game_id`` (each a string of codes)."""
    if game_id == "racing-aces":
        piles = {f"f{i}": run("A", "K", s) for i, s in enumerate("cdhs")}
        piles |= {f"f{4 + i}": run("6", "A", s) for i, s in enumerate("cdhs")}
        piles |= {f"f{8 + i}": run("7", "K", s) for i, s in enumerate("cdhs")}
        piles |= {f"f{12 + i}": run("K", "A", s) for i, s in enumerate("cdhs")}
        return piles
    if game_id == "double-aces-and-kings":
        piles = {f"f{i}": run("A", "K", s) for i, s in enumerate("cdhscdhs")}
        piles |= {f"f{8 + i}": run("K", "A", s) for i, s in enumerate("cdhscdhs")}
        return piles
    if game_id == "rouge-et-noir":
        return {
            "f0": run("A", "K", "cs"),
            "f1": run("A", "K", "dh"),
            "f2": run("A", "K", "sc"),
            "f3": run("A", "K", "hd"),
            "f4": run("K", "A", "ch"),
            "f5": run("K", "A", "sd"),
            "f6": run("K", "A", "hc"),
            "f7": run("K", "A", "ds"),
        }
    if game_id == "fours-up":
        return {f"f{i}": fours_up_pile(s) for i, s in enumerate("cdhscdhs")}
    raise ValueError(game_id)


def won_foundations(game_id: str, **keep: int) -> str:
    """The foundations of a won position of ``game_id`` in the text of ``rules.from_text``, but
    for the piles named in ``keep``, cut to their first ``keep[name]`` cards:
    ``won_foundations("racing-aces", f0=1)`` leaves the Ac alone on f0."""
    piles = won_piles(game_id)
    assert set(keep) <= set(piles)
    return " ".join(f"{name}:{codes[: 2 * keep.get(name, len(codes) // 2)]}" for name, codes in piles.items())


def endgame(game_id: str, rng: random.Random, out: int) -> Game | None:
    """A won position with ``out`` foundation tops taken back out and scattered;
    None if the engine refuses the result (e.g. a Rouge et Noir pair emptied
    in a way the pair rule forbids)."""
    gdef = rules.GAMES[game_id]
    piles = {
        name: [won[i : i + 2] for i in range(0, len(won), 2)] for name, won in won_piles(game_id).items()
    }
    # Sequence foundations give nothing back; Fours Up keeps at least its 4.
    takeable = [n for n in piles if not (game_id == "rouge-et-noir" and n in ("f4", "f5", "f6", "f7"))]
    keep = 1 if game_id == "fours-up" else 0
    loose: list[str] = []
    for _ in range(out):
        choices = [n for n in takeable if len(piles[n]) > keep]
        name = rng.choice(choices)
        loose.append(piles[name].pop())
    places = ["s"] + (["w"] if "w" in gdef.index else []) + [n for n in gdef.pile_names if n.startswith("r")]
    tableau = [n for n in gdef.pile_names if n.startswith("t")]
    rest: dict[str, list[str]] = {n: [] for n in gdef.pile_names if n not in piles}
    for card in loose:
        free = [t for t in tableau if not rest[t]]
        where = rng.choice(places + free)
        rest[where].append(card)
    parts = [game_id] + [f"{n}:{''.join(piles[n] if n in piles else rest[n])}" for n in gdef.pile_names]
    try:
        return rules.from_text(" ".join(parts))
    except rules.PositionError:
        return None


def exhaustive(g: Game, limit: int = 50_000) -> bool | None:
    """Is a won position reachable from ``g``? None if more than ``limit``
    positions are reachable (too big to list). Moves home are tried first (they
    find a win sooner); the order changes nothing else."""
    if g.won:
        return True
    seen = {g.to_text()}
    stack = [g]
    while stack:
        node = stack.pop()
        moves = node.legal_moves()
        moves.sort(key=lambda m: m.rpartition(">")[2].startswith("f"))  # the stack pops the last first
        for move in moves:
            child = node.copy()
            child.play(move)
            if child.won:
                return True
            text = child.to_text()
            if text not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(text)
                stack.append(child)
    return False
