"""The examples of docs/rules.md (§2.8, §3.6, §4.10, §5.8), one test each, built
from position texts; each test names the rule it checks."""

from __future__ import annotations

from rules_helpers import cards, legal, pile, pos, refused

from protocol import rules

RA = "racing-aces"
DAK = "double-aces-and-kings"
RN = "rouge-et-noir"
FU = "fours-up"


# --- Racing Aces (docs/rules.md §2): f0-f3 Aces, f4-f7 Sixes, f8-f11 Sevens, f12-f15 Kings


def test_ra_empty_aces_pile_takes_an_ace_from_the_waste():
    """docs/rules.md §2.3."""
    legal(pos(RA, w="As"), "w>f0")
    refused(pos(RA, w="2h"), "w>f0")


def test_ra_aces_top_9_takes_10_refuses_j_and_8():
    """docs/rules.md §2.3."""
    legal(pos(RA, f0=cards("A-9", "c"), w="Td"), "w>f0")
    refused(pos(RA, f0=cards("A-9", "c"), w="Js"), "w>f0")
    refused(pos(RA, f0=cards("A-9", "c"), w="8h"), "w>f0")


def test_ra_full_aces_pile_refuses_an_ace():
    """docs/rules.md §2.3: no wrap."""
    refused(pos(RA, f0=cards("A-K", "cdhs"), w="Ah"), "w>f0")


def test_ra_empty_sixes_takes_6_refuses_7_and_a():
    """docs/rules.md §2.3."""
    legal(pos(RA, w="6c"), "w>f4")
    refused(pos(RA, w="7c"), "w>f4")
    refused(pos(RA, w="Ac"), "w>f4")


def test_ra_sixes_top_3_takes_2_refuses_4():
    """docs/rules.md §2.3."""
    legal(pos(RA, f4="6h5h4h3h", w="2c"), "w>f4")
    refused(pos(RA, f4="6h5h4h3h", w="4c"), "w>f4")


def test_ra_empty_sevens_takes_7_refuses_6():
    """docs/rules.md §2.3."""
    legal(pos(RA, w="7d"), "w>f8")
    refused(pos(RA, w="6d"), "w>f8")


def test_ra_sevens_top_10_takes_j():
    """docs/rules.md §2.3."""
    legal(pos(RA, f8=cards("7-T", "s"), w="Jh"), "w>f8")


def test_ra_kings_top_8_takes_7_refuses_9():
    """docs/rules.md §2.3."""
    legal(pos(RA, f12=cards("K-8", "s"), w="7d"), "w>f12")
    refused(pos(RA, f12=cards("K-8", "s"), w="9d"), "w>f12")


def test_ra_aces_top_5_to_kings_top_6_across_groups():
    """docs/rules.md §2.4: foundation to foundation, across groups."""
    g = pos(RA, f0=cards("A-5", "c"), f12=cards("K-6", "h"))
    legal(g, "f0>f12")
    home = g.cards_home
    g.play("f0>f12")
    assert pile(g, "f12").endswith("5c") and g.cards_home == home


def test_ra_lone_six_to_aces_top_5_empties_the_sixes_pile():
    """docs/rules.md §2.4."""
    g = pos(RA, f0=cards("A-5", "c"), f4="6d")
    legal(g, "f4>f0")
    g.play("f4>f0")
    assert pile(g, "f4") == "" and pile(g, "f0").endswith("6d")


def test_ra_king_of_full_aces_pile_to_empty_kings_pile():
    """docs/rules.md §2.4: full piles give too."""
    g = pos(RA, f0=cards("A-K", "c"))
    legal(g, "f0>f12")
    g.play("f0>f12")
    assert pile(g, "f12") == "Kc" and len(g.pile("f0")) == 12


def test_ra_tableau_card_played_home_is_replaced_by_the_stock_top():
    """docs/rules.md §2.5: refill."""
    g = pos(RA, t0="Ah", s="9c")
    stock = g.stock_count
    result = g.apply("t0>f0")
    assert pile(g, "t0") == "9c"
    assert g.stock_count == stock - 1
    assert result.revealed == (("t0", "9c"),)


def test_ra_reserve_cannot_go_to_tableau_while_no_pile_is_empty():
    """docs/rules.md §2.4: only empty tableau piles take a card."""
    g = pos(RA, r0="5c", t0="Kd", t1="Kd", t2="Kh", t3="Kh", t4="Ks", t5="Ks")
    assert g.stock_count > 0
    for t in range(6):
        refused(g, f"r0>t{t}")


def test_ra_with_stock_empty_any_top_may_fill_an_empty_tableau_pile():
    """docs/rules.md §2.4, §2.5: no refill once the stock is empty."""
    g = pos(RA, fill="r2", f0="Ac", r0="5c", w="9h", t1="Qd")
    assert g.stock_count == 0 and pile(g, "t0") == ""
    for move in ("r0>t0", "w>t0", "f0>t0", "t1>t0", "r2>t0"):
        legal(g, move)
    g.play("t1>t0")
    assert pile(g, "t0") == "Qd" and pile(g, "t1") == ""  # no refill: the stock is empty
    refused(g, "r0>t0")
    g.play("w>t1")
    refused(g, "r0>t1")
    refused(g, "f0>t1")


def test_ra_draw_with_empty_stock_is_refused():
    """docs/rules.md §1.3: no redeal."""
    refused(pos(RA, fill="r0"), "draw", "stock-empty")


def test_ra_two_card_move_is_refused():
    """docs/rules.md §2.4: one card at a time."""
    g = pos(RA, fill="r0", t0="5c")
    refused(g, "r0:2>t1", "not-available")
    refused(g, "t0:2>t1", "not-available")
    refused(g, "r0:2>f0", "not-available")


# --- Double Aces and Kings (docs/rules.md §3): f0-f7 Aces, f8-f15 Kings ----------


def test_dak_aces_top_j_takes_q():
    """docs/rules.md §3.1."""
    legal(pos(DAK, f0=cards("A-J", "d"), w="Qs"), "w>f0")


def test_dak_kings_top_8_takes_7_refuses_9():
    """docs/rules.md §3.1."""
    legal(pos(DAK, f8=cards("K-8", "h"), w="7c"), "w>f8")
    refused(pos(DAK, f8=cards("K-8", "h"), w="9c"), "w>f8")


def test_dak_full_piles_refuse_more():
    """docs/rules.md §3.1, §1.1: no wrap."""
    for card in ("Ac", "Kc", "2c", "Qc"):
        g = pos(DAK, f0=cards("A-K", "cdhs"), f8=cards("K-A", "hsdc"), w=card)
        refused(g, "w>f0")
        refused(g, "w>f8")


def test_dak_aces_top_6_to_kings_top_7():
    """docs/rules.md §3.3: foundation to foundation, across groups."""
    legal(pos(DAK, f0=cards("A-6", "s"), f8=cards("K-7", "d")), "f0>f8")


def test_dak_lone_king_to_empty_tableau_pile():
    """docs/rules.md §3.3."""
    g = pos(DAK, f8="Kc", t0="")
    legal(g, "f8>t0")


def test_dak_tableau_card_home_leaves_pile_empty_and_stock_unchanged():
    """docs/rules.md §3.3: no refill."""
    g = pos(DAK, t0="Ah", t1="5c")
    stock = g.stock_count
    result = g.apply("t0>f0")
    assert pile(g, "t0") == "" and g.stock_count == stock and result.revealed == ()


def test_dak_reserve_fills_empty_tableau_pile_while_stock_has_cards():
    """docs/rules.md §3.3: no refill."""
    g = pos(DAK, r0="9d")
    assert g.stock_count > 0
    legal(g, "r0>t0")


# --- Rouge et Noir (docs/rules.md §4): f0-f3 colour (pairs f0/f1, f2/f3), f4-f7 sequence


def test_rn_pair_rule_second_pile_of_a_pair():
    """docs/rules.md §4.4: the pair rule."""
    g = pos(RN, f0="Ah", t0="Ad", t1="As")
    refused(g, "t0>f1")
    legal(g, "t1>f1")


def test_rn_pair_rule_other_pair_is_independent():
    """docs/rules.md §4.4: the pair rule."""
    g = pos(RN, f0="Ah", f1="As", t0="Ad", t1="Ah", t2="Ac")
    legal(g, "t0>f2")
    g.play("t0>f2")
    refused(g, "t1>f3")
    legal(g, "t2>f3")


def test_rn_colour_foundation_builds_in_one_colour():
    """docs/rules.md §4.4."""
    base = dict(f0=cards("A-5", "h"))
    legal(pos(RN, **base, t0="6d"), "t0>f0")
    legal(pos(RN, **base, t0="6h"), "t0>f0")
    refused(pos(RN, **base, t0="6c"), "t0>f0")
    refused(pos(RN, **base, t0="7h"), "t0>f0")


def test_rn_tableau_builds_down_in_alternating_colour():
    """docs/rules.md §4.3."""
    legal(pos(RN, t0="8s", t1="7h"), "t1>t0")
    refused(pos(RN, t0="8s", t1="7c"), "t1>t0")


def test_rn_runs_move_as_a_unit():
    """docs/rules.md §4.3: runs."""
    g = pos(RN, t0="9c8h7s", t1="Td", t2="Ts", t3="9s")
    legal(g, "t0:3>t1")
    refused(g, "t0:3>t2")
    legal(g, "t0:2>t3")


def test_rn_same_colour_cards_are_not_a_run():
    """docs/rules.md §4.3: runs."""
    refused(pos(RN, t0="9c8c", t1="Td"), "t0:2>t1", "not-available")


def test_rn_empty_pile_takes_only_king_led_runs():
    """docs/rules.md §4.3."""
    g = pos(RN, t0="Kd", t1="KsQhJc")
    legal(g, "t0>t9")
    legal(g, "t1:3>t9")
    refused(g, "t1:2>t9")


def test_rn_uncovering_a_face_down_card_flips_it():
    """docs/rules.md §4.6: flip."""
    g = pos(RN, t0="~Qc~3d8h", t1="9s")
    result = g.apply("t0>t1")
    assert pile(g, "t0") == "~Qc3d"
    assert result.revealed == (("t0", "3d"),)
    assert "3d" in g.view_text() and "~" not in g.view_text()


def test_rn_complete_run_to_empty_sequence_foundation():
    """docs/rules.md §4.5."""
    run13 = cards("K-A", "hs")
    g = pos(RN, t0=run13)
    legal(g, "t0:13>f4")
    g.play("t0:13>f4")
    assert pile(g, "f4") == run13 and g.cards_home == 13
    for move in ("f4>t0", "f4>t1", "f4>f0", "f4>f5", "f4:13>f5", "f4:13>t0"):
        refused(g, move, "not-available")
    twelve = pos(RN, t0=cards("K-2", "hs"))
    refused(twelve, "t0:12>f4")
    refused(pos(RN, t0=cards("Q-A", "hs")), "t0:12>f4")


def test_rn_colour_foundation_top_returns_to_tableau_only_by_tableau_rules():
    """docs/rules.md §4.4."""
    g = pos(RN, f0=cards("A-7", "d"), t0="8c", t1="8h")
    legal(g, "f0>t0")
    refused(g, "f0>t1")
    refused(g, "f0>t9")


def test_rn_king_of_complete_colour_pile_to_empty_pile():
    """docs/rules.md §4.4."""
    legal(pos(RN, f0=cards("A-K", "s")), "f0>t9")


def test_rn_colour_to_colour_is_refused():
    """docs/rules.md §4.4."""
    g = pos(RN, f0=cards("A-2", "h"), f2=cards("A-2", "d"), f1="As")
    refused(g, "f0>f1")
    g2 = pos(RN, f0="Ah", t0="Ac")
    refused(g2, "f0>f2")  # even an ace that f2 would take from the tableau


def test_rn_draw_with_t9_empty_is_legal():
    """docs/rules.md §4.7."""
    g = rules.deal(RN, "solrace")
    assert pile(g, "t9") == ""
    legal(g, "draw")
    g.play("draw")
    assert len(g.pile("t9")) == 1


def test_rn_last_deal_reaches_t0_to_t6_only():
    """docs/rules.md §4.7."""
    g = rules.deal(RN, "solrace")
    for _ in range(6):
        assert len(g.apply("draw").revealed) == 10
    assert g.stock_count == 7
    sizes = [len(g.pile(f"t{i}")) for i in range(10)]
    result = g.apply("draw")
    assert [name for name, _ in result.revealed] == [f"t{i}" for i in range(7)]
    assert [len(g.pile(f"t{i}")) for i in range(10)] == [n + (i < 7) for i, n in enumerate(sizes)]
    assert g.stock_count == 0
    refused(g, "draw", "stock-empty")


# --- Fours Up (docs/rules.md §5): f0-f7 foundations from 4, t0-t5 tableau ---------

FU_BASES = dict(zip([f"f{i}" for i in range(8)], ["4c", "4d", "4h", "4s"] * 2))


def test_fu_start_every_foundation_one_4_and_no_4_elsewhere():
    """docs/rules.md §5.2."""
    for seed in ("solrace", "x", "y"):
        g = rules.deal(FU, seed)
        for i in range(8):
            assert g.pile(f"f{i}") == [FU_BASES[f"f{i}"]]
        others = [c for name in g.game.pile_names if not name.startswith("f") for c in g.pile(name)]
        assert others and not any(c.startswith("4") for c in others)


def test_fu_foundation_builds_up_in_suit():
    """docs/rules.md §5.3."""
    legal(pos(FU, **FU_BASES, w="5s"), "w>f3")
    refused(pos(FU, **FU_BASES, w="5h"), "w>f3")


def test_fu_foundation_wraps_k_to_a():
    """docs/rules.md §5.3: wrap."""
    piles = {**FU_BASES, "f1": cards("4-K", "d")}
    legal(pos(FU, **piles, w="Ad"), "w>f1")
    refused(pos(FU, **piles, w="2d"), "w>f1")


def test_fu_full_foundation_top_3_refuses_4():
    """docs/rules.md §5.3."""
    piles = {**FU_BASES, "f1": cards("4-K", "d") + cards("A-3", "d"), "f5": ""}
    g = pos(FU, **piles, w="4d")
    refused(g, "w>f1")
    legal(g, "w>f5")


def test_fu_tableau_builds_down_any_suit():
    """docs/rules.md §5.4: placing rule."""
    legal(pos(FU, **FU_BASES, t0="Ts", w="9h"), "w>t0")
    legal(pos(FU, **FU_BASES, t0="Ts", w="9s"), "w>t0")
    refused(pos(FU, **FU_BASES, t0="Ts", w="8d"), "w>t0")


def test_fu_tableau_5_takes_4():
    """docs/rules.md §5.4: placing rule."""
    piles = {**FU_BASES, "f0": ""}
    legal(pos(FU, **piles, t0="5d", t1="4c"), "t1>t0")


def test_fu_tableau_4_refuses_3():
    """docs/rules.md §5.4: placing rule."""
    piles = {**FU_BASES, "f0": ""}
    refused(pos(FU, **piles, t0="4c", w="3h"), "w>t0")


def test_fu_low_cards_never_go_onto_a_card():
    """docs/rules.md §5.4: placing rule, no wrap."""
    piles = {**FU_BASES, "f0": ""}
    for top, card in (("4c", "3h"), ("3c", "2h"), ("2c", "Ah"), ("Ac", "Kh")):
        refused(pos(FU, **piles, t0=top, w=card), "w>t0")


def test_fu_empty_pile_takes_any_card_or_run():
    """docs/rules.md §5.4."""
    for card in ("Ah", "2c", "Kd"):
        legal(pos(FU, **FU_BASES, w=card), "w>t0")
    g = pos(FU, **FU_BASES, t1="9h8c7d")
    legal(g, "t1:2>t0")
    legal(g, "t1:3>t0")


def test_fu_runs_ignore_suit():
    """docs/rules.md §5.4: runs."""
    g = pos(FU, **FU_BASES, t0="JsTh9c", t1="Jd", t2="Qc", t3="Ts")
    legal(g, "t0:2>t1")
    legal(g, "t0:3>t2")
    refused(g, "t0:2>t3")


def test_fu_foundation_top_to_tableau_by_placing_rule():
    """docs/rules.md §5.5."""
    legal(pos(FU, **{**FU_BASES, "f2": cards("4-Q", "h")}, t0="Kc"), "f2>t0")


def test_fu_lone_base_4_leaves_then_its_pile_takes_any_4_only():
    """docs/rules.md §5.3, §5.5: the base 4 may leave."""
    g = pos(FU, **{**FU_BASES, "f3": ""}, t0="5c", t1="4s", w="5h")
    legal(g, "f2>t0")
    g.play("f2>t0")
    assert pile(g, "f2") == "" and pile(g, "t0") == "5c4h"
    refused(g, "w>f2")
    legal(g, "t1>f2")


def test_fu_foundation_to_foundation():
    """docs/rules.md §5.5."""
    g = pos(FU, **{**FU_BASES, "f3": cards("4-7", "s"), "f7": cards("4-6", "s"), "f2": cards("4-6", "h")})
    legal(g, "f3>f7")
    refused(g, "f3>f2")
