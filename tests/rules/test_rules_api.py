"""The public API the server and clients code against, and `solrace deal`."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from rules_helpers import cards, pile, pos

from client.cli import main as cli_main
from protocol import rules


def test_games_table():
    expected = {
        "racing-aces": ("Racing Aces", 3, 156, 27),
        "double-aces-and-kings": ("Double Aces and Kings", 4, 208, 30),
        "rouge-et-noir": ("Rouge et Noir", 2, 104, 19),
        "fours-up": ("Fours Up", 2, 104, 16),
    }
    assert list(rules.GAMES) == list(expected)
    for game_id, (name, decks, total, npiles) in expected.items():
        game = rules.GAMES[game_id]
        assert (game.id, game.name, game.decks, game.total) == (game_id, name, decks, total)
        assert isinstance(game.pile_names, tuple) and len(game.pile_names) == npiles
        assert rules.deal(game_id, "x").game is game
    assert rules.GAMES["rouge-et-noir"].pile_names[-1] == "s"
    assert rules.GAMES["racing-aces"].pile_names[-2:] == ("s", "w")


def test_versions():
    assert rules.RULES_VERSION == 1 and rules.DEAL_VERSION == 1


def test_game_facts():
    g = rules.deal("racing-aces", "solrace")
    assert g.game_id == "racing-aces" and g.total == 156 and g.stock_count == 111
    assert g.cards_home == 0 and not g.won


def test_apply_returns_a_frozen_move_result():
    g = rules.deal("racing-aces", "solrace")
    top = g.pile("s")[-1]
    r = g.apply("draw")
    assert r == rules.MoveResult("draw", (("w", top),), 0, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.won = True  # type: ignore[misc]


def test_play_returns_none_and_apply_counts_home():
    g = pos("racing-aces", w="Ac", t0="Kd")
    # play is typed to return None; what it returns at run time is what this checks
    assert g.play("w>f0") is None and g.cards_home == 1  # type: ignore[func-returns-value]
    g2 = pos("racing-aces", w="Ac", t0="Kd")
    r2 = g2.apply("w>f0")
    assert r2 == rules.MoveResult("w>f0", (), 1, False) and g2.cards_home == 1


def test_taking_a_card_back_lowers_cards_home():
    g = pos("fours-up", **{f"f{i}": c for i, c in enumerate(["4c5c", "4d", "4h", "4s"] * 2)})
    assert g.cards_home == 10
    g.apply("f0>t0")
    assert g.cards_home == 9 and pile(g, "t0") == "5c"
    g.apply("f1>t0")  # the base 4 may leave too
    assert g.cards_home == 8 and pile(g, "t0") == "5c4d" and pile(g, "f1") == ""


WON = {
    "racing-aces": {
        f"f{i}": cards(r, "cdhs"[i % 4])
        for i, r in enumerate(["A-K"] * 4 + ["6-A"] * 4 + ["7-K"] * 4 + ["K-A"] * 4)
    },
    "double-aces-and-kings": {f"f{i}": cards("A-K" if i < 8 else "K-A", "cdhs"[i % 4]) for i in range(16)},
    "fours-up": {f"f{i}": cards("4-K", "cdhs"[i % 4]) + cards("A-3", "cdhs"[i % 4]) for i in range(8)},
    "rouge-et-noir": {
        **{f"f{i}": cards("A-K", "hsdc"[i]) for i in range(4)},
        **{f"f{i + 4}": cards("K-A", suits) for i, suits in enumerate(["sh", "hs", "cd", "dc"])},
    },
}


@pytest.mark.parametrize("game_id", list(WON))
def test_won_position_still_has_moves(game_id):
    g = pos(game_id, **WON[game_id])
    assert g.stock_count == 0 and g.won and g.cards_home == g.total
    moves = g.legal_moves()
    assert moves and "draw" not in moves
    g.play(moves[0])
    if game_id == "rouge-et-noir":  # a card taken back off a foundation un-wins it (rules.md)
        assert not g.won, f"{moves[0]} took a card off a foundation and the position still counts as won"


def test_check_and_is_legal_change_nothing():
    g = rules.deal("rouge-et-noir", "solrace")
    before = g.to_text()
    for move in g.legal_moves() + ["t0>t1", "nonsense", "t9>f0"]:
        g.is_legal(move)
        try:
            g.check(move)
        except rules.IllegalMove:
            pass
    assert g.to_text() == before


def test_copy_is_independent():
    g = rules.deal("rouge-et-noir", "solrace")
    c = g.copy()
    assert c == g and c is not g
    c.play("draw")
    assert c != g and g.stock_count == 67 and c.stock_count == 57


def test_games_pickle_and_deepcopy_by_reference():
    g = rules.deal("fours-up", "solrace")
    g.play("draw")
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g), copy.copy(g)):
        assert clone == g and clone.game is g.game and clone.piles is not g.piles
        assert clone.cards_home == g.cards_home and clone.to_text() == g.to_text()


def test_view_structure():
    g = rules.deal("rouge-et-noir", "solrace")
    v = g.view()
    assert v.game_id == "rouge-et-noir" and v.stock == 67 and v.cards_home == 0 and v.total == 104
    assert [n for n, _ in v.piles] == [n for n in g.game.pile_names if n != "s"]
    assert v.pile("t0") == (None,) * 7 + ("3h",)
    assert v.pile("t9") == ()
    assert v.to_text() == g.view_text()
    assert v.to_text().endswith("t9: s:#67")
    assert rules.view_from_text(v.to_text()) == v
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.stock = 3  # type: ignore[misc]
    ra = rules.deal("racing-aces", "solrace").view()
    assert ra.to_text().endswith(" s:#111 w:")


def test_view_of_a_position_text_hides_exactly_the_face_down_cards():
    g = pos("rouge-et-noir", t0="~Kh~3dQs")
    assert "t0:????Qs" in g.view_text()
    assert "Kh" not in g.view_text().split("t0:")[1].split(" ")[0]


def test_card_codes():
    assert rules.card_code(0) == "Ac" and rules.card_code(60) == "9c" and rules.card_code(51) == "Ks"
    assert rules.card_code(52 + 13 + 9) == "Td"
    assert rules.parse_card("Td") == 22
    with pytest.raises(ValueError):
        rules.parse_card("10d")


def test_replay_plays_all_moves():
    g = rules.replay("racing-aces", "solrace", ["draw", "draw"])
    assert g.stock_count == 109 and len(g.pile("w")) == 2


def test_legal_moves_are_canonical_and_draw_first():
    g = rules.deal("racing-aces", "solrace")
    moves = g.legal_moves()
    assert moves[0] == "draw"
    assert all(m == "draw" or ">" in m for m in moves)


def test_cli_deal_with_seed(capsys):
    assert cli_main(["deal", "racing-aces", "--seed", "solrace"]) == 0
    out = capsys.readouterr().out
    g = rules.deal("racing-aces", "solrace")
    assert g.to_text() in out and g.view_text() in out
    assert " ".join(g.legal_moves()) in out


def test_cli_deal_random_seed_and_moves(capsys):
    assert cli_main(["deal", "rouge-et-noir", "--moves", "draw draw"]) == 0
    out = capsys.readouterr().out
    seed = next(line.split()[1] for line in out.splitlines() if line.startswith("seed:"))
    assert len(seed) == 32
    assert rules.replay("rouge-et-noir", seed, ["draw", "draw"]).to_text() in out


def test_cli_deal_illegal_move(capsys):
    assert cli_main(["deal", "fours-up", "--seed", "x", "--moves", "draw t0>t0"]) == 1
    said = capsys.readouterr().err
    # In words, not by the engine's code (same-pile): tests/cli/test_cli_errors.py
    assert "'t0>t0' (move 2 of --moves) is illegal: source and destination are the same pile" in said
    assert "same-pile" not in said
