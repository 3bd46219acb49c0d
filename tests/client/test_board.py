"""The client's view update (client.library.board) against the real rules engine.

Random games of all four games: after every move, applying the move and its
`revealed` cards to the client's view must give exactly `g.view_text()`.
"""

from __future__ import annotations

import random

import pytest

from client.library.board import Board, NoView, ViewMismatch, apply_move, apply_move_text
from protocol import rules

GAMES = sorted(rules.GAMES)


@pytest.mark.parametrize("game_id", GAMES)
def test_view_follows_engine_in_random_games(game_id: str) -> None:
    rng = random.Random(f"board-{game_id}")
    moves_checked = 0
    kinds = {"draw": 0, "flip": 0, "refill": 0}
    for deal_no in range(12):
        g = rules.deal(game_id, f"{game_id}-{deal_no}")
        view = rules.view_from_text(g.view_text())
        assert view == g.view()
        for _ in range(250):
            legal = g.legal_moves()
            if not legal:
                break
            # Prefer playing over drawing, so tableau piles empty (refills)
            # and uncover face-down cards (flips) often, not just draws.
            plays = [m for m in legal if m != "draw"]
            move = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
            before = view
            result = g.apply(move)
            for pile, _card in result.revealed:
                if move == "draw":
                    kinds["draw"] += 1
                elif len(before.pile(pile)) > 1 and before.pile(pile)[-2] is None:
                    kinds["flip"] += 1
                else:
                    kinds["refill"] += 1
            view = apply_move(view, move, result.revealed)
            assert view.to_text() == g.view_text(), (game_id, deal_no, move)
            assert view.cards_home == result.cards_home
            moves_checked += 1
    assert moves_checked > 1000
    assert kinds["draw"] > 50, kinds
    if game_id == "racing-aces":
        assert kinds["refill"] > 100
    if game_id == "rouge-et-noir":
        assert kinds["flip"] > 50, kinds


@pytest.mark.parametrize("game_id", GAMES)
def test_text_variant_and_board(game_id: str) -> None:
    g = rules.deal(game_id, "text-variant")
    board = Board(race="r1")
    board.reset(g.view_text(), 0)
    text = g.view_text()
    for n in range(1, 40):
        legal = g.legal_moves()
        move = legal[n % len(legal)]
        res = g.apply(move)
        text = apply_move_text(text, move, res.revealed)
        assert text == g.view_text()
        board.apply_ack(
            move, n, res.revealed, home=res.cards_home, won=res.won, status="playing", view_text=g.view_text()
        )
        assert board.n == n and board.view_text == g.view_text()


def test_a_board_has_no_view_before_its_start() -> None:
    board = Board(race="r1")
    assert not board.has_view
    with pytest.raises(NoView, match="r1 has not started"):
        _ = board.view
    with pytest.raises(NoView):
        _ = board.view_text
    g = rules.deal("racing-aces", "start")
    board.reset(g.view_text(), 0)
    assert board.has_view and board.view == g.view() and board.view_text == g.view_text()


def test_mismatches_are_detected() -> None:
    g = rules.deal("racing-aces", "mismatch")
    view = g.view()
    with pytest.raises(ViewMismatch):
        apply_move(view, "t9>f0", ())  # no such pile
    with pytest.raises(ViewMismatch):
        apply_move(view, "w>f0", ())  # empty waste
    with pytest.raises(ViewMismatch):
        apply_move(view, "draw", ())  # a draw always reveals
    with pytest.raises(ViewMismatch):
        apply_move(view, "nonsense", ())
    board = Board(race="r")
    board.reset(g.view_text(), 0)
    res = g.apply("draw")
    with pytest.raises(ViewMismatch):
        board.apply_ack("draw", 2, res.revealed, home=0, won=False, status="playing")
    with pytest.raises(ViewMismatch):
        board.apply_ack("draw", 1, res.revealed, home=0, won=False, status="playing", view_text="x")


def test_rouge_et_noir_flip_and_deal() -> None:
    # The deal writes one revealed card per tableau pile, onto tops; a flip
    # replaces a face-down top.
    g = rules.deal("rouge-et-noir", "flip")
    view = g.view()
    res = g.apply("draw")
    assert [p for p, _ in res.revealed] == [f"t{i}" for i in range(10)]
    view = apply_move(view, "draw", res.revealed)
    assert view.stock == 57 and view.to_text() == g.view_text()
