"""Rules at their edges: the cases where a plausible engine bug would still pass
the examples of docs/rules.md (test_rules_vectors.py). Each test sets up a
position where the rule is the only thing that makes the difference, e.g. a
run whose bottom card the foundation would take as a single card, or a
face-down card that would otherwise complete a run. Every refusal asserts its
code (docs/rules.md §6)."""

from __future__ import annotations

import pytest
from rules_helpers import RANKS, cards, legal, pile, pos, refused

RA = "racing-aces"
DAK = "double-aces-and-kings"
RN = "rouge-et-noir"
FU = "fours-up"

FU_BASES = dict(zip([f"f{i}" for i in range(8)], ["4c", "4d", "4h", "4s"] * 2))
#: Fours Up with every card home (8 full foundations, 4..K, A, 2, 3 in suit).
FU_ALL_HOME = {f"f{i}": cards("4-K", s) + cards("A-3", s) for i, s in enumerate("cdhs" * 2)}


# --- §1.3 no redeal ---------------------------------------------------------


@pytest.mark.parametrize("game_id", [RA, DAK, FU])
def test_draw_with_empty_stock_and_cards_on_the_waste_is_refused(game_id):
    """docs/rules.md §1.3: no game has a redeal; the waste is not turned back
    into the stock when the stock runs out."""
    if game_id == FU:
        g = pos(FU, fill="w", **FU_BASES)  # every card not home is on the waste
    else:
        g = pos(game_id, fill="r0", w="9h7cKd")
    assert g.stock_count == 0 and len(g.pile("w")) >= 3
    refused(g, "draw", "stock-empty")
    assert "draw" not in g.legal_moves() and g.legal_moves()  # other moves remain


@pytest.mark.parametrize("game_id", [DAK, FU])
def test_draw_with_empty_stock_and_empty_waste_is_refused(game_id):
    """docs/rules.md §1.3: `draw` is illegal when the stock is empty (Racing Aces
    and Rouge et Noir: test_rules_vectors.py)."""
    g = pos(FU, fill="f0", **FU_ALL_HOME) if game_id == FU else pos(DAK, fill="r0")
    assert g.stock_count == 0 and pile(g, "w") == ""
    refused(g, "draw", "stock-empty")


# --- §1.3, §4.3, §5.5 runs never go to a colour foundation or a Fours Up foundation


def test_fu_run_never_goes_to_a_foundation_even_if_it_takes_the_bottom_card():
    """docs/rules.md §5.5: runs go only to tableau piles, never to a foundation.
    f0 (top 5c) takes 6c as a single card, but not the run 6c 5h."""
    g = pos(FU, **{**FU_BASES, "f0": "4c5c"}, t0="6c5h", t1="6c")
    legal(g, "t1>f0")
    refused(g, "t0:2>f0", "not-accepted")


def test_rn_run_never_goes_to_a_colour_foundation_even_if_it_takes_the_bottom_card():
    """docs/rules.md §4.3: runs never go to a colour foundation. f0 (top 5h)
    takes 6d as a single card, but not the run 6d 5s."""
    g = pos(RN, f0=cards("A-5", "h"), t0="6d5s", t1="6d")
    legal(g, "t1>f0")
    refused(g, "t0:2>f0", "not-accepted")


# --- §4.3 face-down cards never move ----------------------------------------


def test_rn_face_down_card_never_moves_even_as_the_bottom_of_a_valid_run():
    """docs/rules.md §4.3: face-down cards never move. Face up, 9c 8h would be a
    run that Td takes; with the 9c face down only the 8h may move (onto a 9)."""
    g = pos(RN, t0="~9c8h", t1="Td", t2="9s")
    refused(g, "t0:2>t1", "not-available")
    legal(g, "t2>t1")  # Td takes a 9 of the other colour
    legal(g, "t0>t2")


def test_rn_face_down_king_never_moves_to_an_empty_pile():
    """docs/rules.md §4.3: face-down cards never move, even a K with its run
    on top that an empty pile would take."""
    g = pos(RN, t0="~KsQh")
    assert pile(g, "t9") == ""
    refused(g, "t0:2>t9", "not-available")
    refused(g, "t0>t9", "not-accepted")  # the face-up Qh alone: only a K goes to an empty pile


def test_rn_face_down_king_never_goes_to_a_sequence_foundation():
    """docs/rules.md §4.3, §4.5: a K..A sequence whose K is face down is not a
    13-card run; its 12 face-up cards are not one either."""
    g = pos(RN, t0="~Ks" + cards("Q-A", "hs"))
    refused(g, "t0:13>f4", "not-available")
    refused(g, "t0:12>f4", "not-accepted")


# --- §4.4 the pair rule -----------------------------------------------------


def test_rn_pair_rule_looks_at_the_bottom_card_of_the_other_pile():
    """docs/rules.md §4.4: an A may start an empty colour foundation only if the
    other pile of its pair has at its bottom an A of the other colour: f0 is
    Ah 2d (bottom Ah, top 2d), so f1 takes a black A and refuses a red one."""
    g = pos(RN, f0="Ah2d", t0="As", t1="Ad")
    legal(g, "t0>f1")
    refused(g, "t1>f1", "not-accepted")


def test_rn_pair_rule_follows_the_bottom_card_of_a_long_black_pile():
    """docs/rules.md §4.4: with f3 holding Ac..5s (bottom Ac), f2 takes a red A
    and refuses a black one."""
    g = pos(RN, f3="Ac2s3c4s5c", t0="Ah", t1="As")
    legal(g, "t0>f2")
    refused(g, "t1>f2", "not-accepted")


@pytest.mark.parametrize("found", ["f0", "f1", "f2", "f3"])
def test_rn_empty_pair_takes_an_ace_of_either_colour(found):
    """docs/rules.md §4.4: an A may start an empty colour foundation when the
    other pile of its pair is empty: a black A and a red A are both taken
    (and nothing but an A)."""
    g = pos(RN, t0="Ac", t1="Ah", t2="As", t3="Ad", t4="2c")
    for t in ("t0", "t1", "t2", "t3"):
        legal(g, f"{t}>{found}")
    refused(g, f"t4>{found}", "not-accepted")


def test_rn_pairs_are_independent_a_red_ace_on_f0_does_not_limit_f2_or_f3():
    """docs/rules.md §4.4: the two pairs are independent. With only f0 = Ah,
    f2 and f3 (an empty pair) each take a red A as well as a black one."""
    g = pos(RN, f0="Ah", t0="Ad", t1="Ac")
    for move in ("t0>f2", "t0>f3", "t1>f2", "t1>f3", "t1>f1"):
        legal(g, move)
    refused(g, "t0>f1", "not-accepted")


def test_rn_pairs_are_independent_a_black_ace_on_f3_does_not_limit_f0_or_f1():
    """docs/rules.md §4.4: the two pairs are independent, the other way round."""
    g = pos(RN, f3="Ac", t0="As", t1="Ah")
    for move in ("t0>f0", "t0>f1", "t1>f0", "t1>f1", "t1>f2"):
        legal(g, move)
    refused(g, "t0>f2", "not-accepted")


def test_rn_ace_taken_back_to_the_tableau_frees_its_pile():
    """docs/rules.md §4.4: an A taken back to the tableau frees its pile again.
    With Ah on f0, f1 refuses Ad; once Ah goes back onto 2s (by the tableau
    rule, §4.3), f1 and f0 both take Ad."""
    g = pos(RN, f0="Ah", t0="Ad", t1="2s")
    refused(g, "t0>f1", "not-accepted")
    legal(g, "f0>t1")
    g.play("f0>t1")
    assert pile(g, "f0") == "" and pile(g, "t1") == "2sAh" and g.cards_home == 0
    legal(g, "t0>f1")
    legal(g, "t0>f0")


# --- §4.4, §4.5 sequence foundations ----------------------------------------


def test_rn_sequence_foundation_takes_a_run_only_when_empty():
    """docs/rules.md §4.5: an EMPTY sequence foundation takes one complete run;
    one that already holds a run refuses a second."""
    run13 = cards("K-A", "hs")
    g = pos(RN, f4=run13, t0=run13)
    refused(g, "t0:13>f4", "not-accepted")
    legal(g, "t0:13>f5")


def test_rn_complete_run_on_top_of_other_cards_goes_to_a_sequence_foundation():
    """docs/rules.md §4.3, §4.5: the run is the top 13 cards of its pile, which
    may hold other cards beneath it; the card it uncovers flips (§4.6)."""
    run13 = cards("K-A", "hs")
    g = pos(RN, t0="~9c~3d" + run13)
    legal(g, "t0:13>f4")
    result = g.apply("t0:13>f4")
    assert pile(g, "f4") == run13 and pile(g, "t0") == "~9c3d"
    assert result.revealed == (("t0", "3d"),) and g.cards_home == 13


def test_rn_colour_foundation_never_gives_to_a_sequence_foundation():
    """docs/rules.md §4.4: a colour foundation's top may not go to a sequence
    foundation; a full colour pile is not a run either (§4.3)."""
    g = pos(RN, f0=cards("A-K", "h"), f1=cards("A-K", "s"))
    for src in ("f0", "f1"):
        for dst in ("f4", "f7"):
            refused(g, f"{src}>{dst}", "not-accepted")
            refused(g, f"{src}:13>{dst}", "not-available")


# --- §5.4 Fours Up has no refill --------------------------------------------


def test_fu_emptied_tableau_pile_stays_empty_and_the_stock_is_unchanged():
    """docs/rules.md §5.4: there is no refill, to the tableau or to a foundation."""
    g = pos(FU, **FU_BASES, t0="9h", t1="Th", t2="5c", s="Kd")
    stock = g.pile("s")
    assert stock[-1] == "Kd"
    for move, src in (("t0>t1", "t0"), ("t2>f0", "t2")):
        result = g.apply(move)
        assert pile(g, src) == "" and result.revealed == ()
        assert g.pile("s") == stock
    assert pile(g, "t1") == "Th9h" and pile(g, "f0") == "4c5c"


# --- §2.3 Racing Aces: full piles accept nothing ----------------------------

RA_FULL = {
    "f0": ("Aces", cards("A-K", "cdhs")),
    "f4": ("Sixes", cards("6-A", "cdhs")),
    "f8": ("Sevens", cards("7-K", "cdhs")),
    "f12": ("Kings", cards("K-A", "cdhs")),
}


@pytest.mark.parametrize("found", list(RA_FULL), ids=[v[0] for v in RA_FULL.values()])
def test_ra_full_pile_refuses_every_card(found):
    """docs/rules.md §2.3: nothing wraps; a full Aces or Sevens pile (top K) and
    a full Sixes or Kings pile (top A) accept nothing more, not even a card
    of its starting rank."""
    for rank in RANKS:
        g = pos(RA, **{found: RA_FULL[found][1]}, w=rank + "h")
        refused(g, f"w>{found}", "not-accepted")
