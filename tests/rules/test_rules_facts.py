"""Display facts (protocol.rules.facts) agree with the engine's games."""

from __future__ import annotations

import json

import pytest

from protocol import rules
from protocol.rules.facts import UnknownGame, game_def, game_facts, game_name
from protocol.rules.games import FOUNDATION_KINDS, Kind

FANS = {"top", "down", "stock", "waste"}


def test_every_game_has_facts_and_nothing_else_does():
    assert list(game_facts()) == list(rules.GAMES)


@pytest.mark.parametrize("game_id", list(rules.GAMES))
def test_every_pile_appears_once_in_the_layout(game_id):
    game = rules.GAMES[game_id]
    facts = game_facts()[game_id]
    laid_out = [p for col in facts["cols"] for row in col for group in row for p in group["piles"]]
    assert sorted(laid_out) == sorted(game.pile_names)
    assert len(laid_out) == len(set(laid_out))


@pytest.mark.parametrize("game_id", list(rules.GAMES))
def test_facts_follow_the_rules(game_id):
    game = rules.GAMES[game_id]
    facts = game_facts()[game_id]
    assert (facts["name"], facts["decks"], facts["total"]) == (game.name, game.decks, game.total)
    assert facts["blurb"]
    # a hint for every foundation and nothing else
    assert set(facts["hints"]) == {game.pile_names[i] for i in game.found_idx}
    for col in facts["cols"]:
        for row in col:
            for group in row:
                assert set(group) <= {"label", "piles", "fan", "expect"} and group["label"]
                assert group["fan"] in FANS
                kinds = {game.kinds[game.index[p]] for p in group["piles"]}
                if group["fan"] == "top":
                    assert kinds <= FOUNDATION_KINDS
                elif group["fan"] in ("stock", "waste"):
                    assert kinds == {Kind.STOCK if group["fan"] == "stock" else Kind.WASTE}
                else:
                    assert not kinds & (FOUNDATION_KINDS | {Kind.STOCK, Kind.WASTE})
                    assert group["expect"] >= 1


def test_hints_name_the_first_card_of_each_foundation():
    facts = game_facts()
    assert [facts["racing-aces"]["hints"][f"f{i}"] for i in (0, 4, 8, 12)] == ["A", "6", "7", "K"]
    assert facts["rouge-et-noir"]["hints"]["f0"] == "A" and facts["rouge-et-noir"]["hints"]["f7"] == "K…A"
    assert set(facts["fours-up"]["hints"].values()) == {"4"}
    # the game's first moves agree: an empty foundation takes the hinted rank
    g = rules.deal("fours-up", "0123456789abcdef0123456789abcdef")
    assert all(g.pile(f) and g.pile(f)[0][0] == "4" for f in facts["fours-up"]["hints"])


def test_facts_are_json_and_fresh():
    facts = game_facts()
    assert json.loads(json.dumps(facts)) == facts
    facts["fours-up"]["cols"].clear()
    assert game_facts()["fours-up"]["cols"]


def test_unknown_game_is_refused_in_one_line():
    assert game_def("fours-up") is rules.GAMES["fours-up"]
    for bad in ("klondike", None, 3):
        with pytest.raises(UnknownGame) as e:
            game_def(bad)
        assert "\n" not in str(e.value) and "unknown game" in str(e.value) and "fours-up" in str(e.value)
    assert game_name("fours-up") == "Fours Up" and game_name("klondike") == "klondike"
