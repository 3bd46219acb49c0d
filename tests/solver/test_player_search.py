"""The player-side search sees only the view."""

from __future__ import annotations

import random

import pytest

from protocol import rules
from protocol.rules.engine import Game
from protocol.solver import best_move, visible_game


def _reshuffle_hidden(g: Game, rng: random.Random) -> Game:
    """The same view, the hidden cards (stock, face-down) in another order."""
    out = g.copy()
    slots = [(out.game.stock_idx, n) for n in range(len(out.piles[out.game.stock_idx]))]
    for i, d in enumerate(out.down):
        slots += [(i, n) for n in range(d)]
    faces = [out.piles[i][n] for i, n in slots]
    rng.shuffle(faces)
    for (i, n), f in zip(slots, faces, strict=True):
        out.piles[i][n] = f
    assert out.view() == g.view()
    return out


@pytest.mark.parametrize("game", list(rules.GAMES))
def test_same_view_same_move_and_the_move_is_legal(game: str) -> None:
    rng = random.Random(game)
    g = rules.deal(game, f"hint/{game}")
    for _ in range(15):
        move = best_move(g.view(), nodes=300)
        if move is None:
            break
        assert g.is_legal(move)
        other = _reshuffle_hidden(g, rng)
        assert best_move(other.view(), nodes=300) == move
        assert best_move(g.view_text(), nodes=300) == move
        g.play(move)


def test_visible_game_has_the_real_legal_moves() -> None:
    for game in rules.GAMES:
        g = rules.deal(game, "visible")
        v = visible_game(g.view())
        assert v.view() == g.view()
        assert sorted(v.legal_moves()) == sorted(g.legal_moves())


def test_takes_the_winning_move() -> None:
    k = "".join
    text = (
        "fours-up f0:"
        + k(r + "c" for r in "456789TJQKA2")
        + " "
        + " ".join(f"f{i}:" + k(r + s for r in "456789TJQKA23") for i, s in zip(range(1, 8), "dhscdhs"))
        + " t0:3c t1: t2: t3: t4: t5: s: w:"
    )
    g = rules.from_text(text)
    assert best_move(g.view()) == "t0>f0"
