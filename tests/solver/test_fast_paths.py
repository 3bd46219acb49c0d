"""The solver's fast paths say what the plain code they replaced said.

* ``position_key`` was rewritten for speed (a few C-level calls per part
  instead of a loop per pile). The encoding changed; which positions share a
  key must not. ``reference_key`` below is the key as it was (verbatim but
  for names), and on random positions of every game, with every child of
  each, two positions share a reference key exactly when they share a
  ``position_key``.
* ``inplace.play`` and ``unplay`` do to a position what the engine's
  ``Game._play`` does, and undo it exactly.
* ``search._value`` gives the values the plain loop gave.
* ``ordered_moves`` keeps the order of the straightforward scoring it
  replaced (``reference_order``, verbatim but for names).
"""

from __future__ import annotations

import random
from typing import cast

import pytest

from protocol import rules
from protocol.rules.cards import RANK, RED
from protocol.rules.engine import Game
from protocol.rules.games import DRAW, Kind
from protocol.solver.inplace import movers
from protocol.solver.positions import DRAW_RANK, _groups, ordered_moves, position_key
from protocol.solver.search import _pack, _unpack, _value

GAMES = list(rules.GAMES)

_RANK_OF_FACE = bytes([RANK[f] if f < 52 else 0 for f in range(256)])
_RANK_COLOUR_OF_FACE = bytes([RANK[f] * 2 + RED[f] if f < 52 else 0 for f in range(256)])
_SEP = b"\xff"


def reference_key(g: Game) -> bytes:
    """position_key before it was made faster."""
    game = g.game
    by_length, groups, as_is = _groups(game)
    piles = g.piles
    parts = [bytes([len(piles[i]) for i in by_length])]
    if game.id == "rouge-et-noir":
        table = _RANK_COLOUR_OF_FACE
        down = g.down
        tab = []
        for i in as_is:
            p = piles[i]
            if game.kinds[i] == Kind.ALTERNATE:
                tab.append(bytes([down[i]]) + bytes(p).translate(table))
            else:
                parts.append(bytes(p).translate(table))
        if not piles[game.stock_idx]:
            tab.sort()
        parts.extend(tab)
        return _SEP.join(parts)
    if game.id == "fours-up":
        found = sorted((piles[i][0] * 32 + len(piles[i]) if piles[i] else 0) for i in groups[0])
        parts.append(b"".join(n.to_bytes(2, "big") for n in found))
        parts.extend(sorted(bytes(piles[i]) for i in groups[1]))
        parts.append(bytes(piles[as_is[0]]))
        return _SEP.join(parts)
    for grp in groups[:-1]:
        parts.append(bytes(sorted(len(piles[i]) for i in grp)))
    parts.append(b"".join(sorted(bytes(piles[i]).translate(_RANK_OF_FACE) for i in groups[-1])))
    parts.append(bytes(piles[as_is[0]]).translate(_RANK_OF_FACE))
    return _SEP.join(parts)


def reference_order(g: Game) -> list[str]:
    """ordered_moves before its per-game tables."""
    game = g.game
    piles = g.piles
    cache = game.parse_cache
    is_found = game.is_found
    kinds = game.kinds
    down = g.down
    stock_empty = not piles[game.stock_idx]
    interchangeable = game.id != "rouge-et-noir" or stock_empty
    refills = game.refill and not stock_empty
    first_empty: dict[Kind, int] = {}
    if interchangeable:
        for i in game.tab_idx:
            if not piles[i]:
                first_empty.setdefault(kinds[i], i)
    scored: list[tuple[int, int, str]] = []
    for n, move in enumerate(g.legal_moves()):
        if move == DRAW:
            scored.append((DRAW_RANK.get(game.id, 60), n, move))
            continue
        s, k, d = cast(tuple[int, int, int], cache[move])
        src = piles[s]
        if is_found[s]:
            if is_found[d] and kinds[s] == kinds[d] and game.id != "rouge-et-noir":
                if game.piles[s].start == game.piles[d].start and game.piles[s].step == game.piles[d].step:
                    continue
            scored.append((90, n, move))
            continue
        if is_found[d]:
            scored.append((0 if not game.is_tab[s] else 5, n, move))
            continue
        if not piles[d] and interchangeable and game.is_tab[d]:
            if first_empty.get(kinds[d]) != d:
                continue
            if len(src) == k and game.is_tab[s] and kinds[s] == kinds[d] and not refills:
                continue
        if len(src) - k == down[s] and down[s]:
            scored.append((10, n, move))
        elif len(src) == k and game.is_tab[s]:
            scored.append((20, n, move))
        elif game.waste_idx == s:
            scored.append((30, n, move))
        elif game.reserve_idx and s in game.reserve_idx:
            scored.append((25, n, move))
        else:
            scored.append((40, n, move))
    scored.sort()
    return [m for _, _, m in scored]


def reference_value(g: Game) -> int:
    """search._value before it was made faster."""
    game = g.game
    piles = g.piles
    v = 20 * g.cards_home
    if game.waste_idx is not None:
        v -= len(piles[game.waste_idx])
    if game.face_down:
        v -= 5 * sum(g.down)
    for i in game.tab_idx:
        if not piles[i]:
            v += 3
    for i in game.reserve_idx:
        v -= 2 * len(piles[i])
    return v


def walks(game: str, deals: int, moves: int) -> list[Game]:
    """Positions along random games (uniform legal moves), each deal's start
    included, and every child of each."""
    rng = random.Random(f"fast-paths/{game}")
    out: list[Game] = []
    for n in range(deals):
        g = rules.deal(game, f"fast-paths-{n}")
        for _ in range(moves):
            legal = g.legal_moves()
            out.append(g.copy())
            for move in legal:
                child = g.copy()
                child.play(move)
                out.append(child)
            if g.won or not legal:
                break
            g.play(rng.choice(legal))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_position_key_identifies_exactly_what_the_reference_key_did(game: str) -> None:
    new_of_old: dict[bytes, bytes] = {}
    old_of_new: dict[bytes, bytes] = {}
    positions = walks(game, 4, 150)
    # Renamings the key is there for: the tableau piles of a game whose
    # tableau piles are interchangeable, swapped in every other position.
    g0 = positions[0].game
    a, b = g0.tab_idx[0], g0.tab_idx[-1]
    for g in positions[::2]:
        swapped = g.copy()
        swapped.piles[a], swapped.piles[b] = swapped.piles[b], swapped.piles[a]
        swapped.down[a], swapped.down[b] = swapped.down[b], swapped.down[a]
        positions.append(swapped)
    for g in positions:
        old, new = reference_key(g), position_key(g)
        assert new_of_old.setdefault(old, new) == new, g.to_text()
        assert old_of_new.setdefault(new, old) == old, g.to_text()
    # The sample does contain positions that share a key.
    assert len(new_of_old) < len(positions) * 0.9


@pytest.mark.parametrize("game", GAMES)
def test_play_in_place_is_the_engines_play_and_unplay_undoes_it(game: str) -> None:
    play, unplay = movers(rules.game_def(game))
    for g in walks(game, 3, 120)[::3]:
        before = g.copy()
        for move in g.legal_moves():
            expected = g.copy()
            expected._play(move)
            parsed = g.game.parse_cache[move]
            done = play(g, parsed)
            assert g == expected and g.cards_home == expected.cards_home, move
            unplay(g, parsed, done)
            assert g == before and g.cards_home == before.cards_home, move


@pytest.mark.parametrize("game", GAMES)
def test_ordered_moves_keep_the_reference_order(game: str) -> None:
    for g in walks(game, 4, 150)[::2]:
        assert ordered_moves(g) == reference_order(g)


@pytest.mark.parametrize("game", GAMES)
def test_packed_positions_come_back_whole_and_values_are_the_references(game: str) -> None:
    for g in walks(game, 2, 100)[::7]:
        back = _unpack(g.game, _pack(g))
        assert back == g and back.cards_home == g.cards_home
        assert _value(back) == _value(g) == reference_value(g)
