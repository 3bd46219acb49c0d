"""Bad input: every IllegalMove code (docs/rules.md §6), and positions/views that
cannot be (docs/rules.md §7.2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rules_helpers import cards, pos, position_text, refused

from protocol import rules

RA = "racing-aces"
RN = "rouge-et-noir"
FU = "fours-up"


# --- IllegalMove codes ------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        "t2:1>t5",
        "t2:02>t5",
        "t2:0>t5",
        "t02>t5",
        "t0:-2>t1",
        "t0:>t1",
        "",
        "DRAW",
        "draw ",
        " t0>t1",
        "t0 >t1",
        "t0>",
        ">t1",
        "t0->t1",
        "t0>>t1",
        "T0>t1",
        "t0<t1",
        "t0>t1>t2",
        "w>f0\n",
    ],
)
def test_bad_notation(move):
    g = rules.deal(RA, "solrace")
    e = refused(g, move, "bad-notation")
    assert repr(move) in str(e) and "bad-notation" in str(e)


@pytest.mark.parametrize("move", [None, 5, b"draw", ["t0", "t1"], ("draw",)])
def test_non_string_moves_are_bad_notation(move):
    g = rules.deal(RA, "solrace")
    with pytest.raises(rules.IllegalMove) as info:
        g.play(move)  # type: ignore[arg-type]
    assert info.value.code == "bad-notation"
    assert not g.is_legal(move)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "game_id,move",
    [
        (RN, "w>f0"),
        (RN, "t0>w"),
        (RA, "f16>f0"),
        (RA, "r3>t0"),
        (RA, "t0>t6"),
        (FU, "r0>t0"),
        (RN, "t10>t0"),
        (RA, "x0>t0"),
        (RA, "t0>x"),
        (FU, "f8>f0"),
        (RA, "s0>w"),
    ],
)
def test_no_such_pile(game_id, move):
    refused(rules.deal(game_id, "solrace"), move, "no-such-pile")


@pytest.mark.parametrize("move", ["t0>t0", "t0:2>t0", "f0>f0", "w>w", "s>s"])
def test_same_pile(move):
    refused(pos(FU, t0="9c8c"), move, "same-pile")


def test_not_available():
    g = pos(RA, t1="5c")
    refused(g, "t0>f0", "not-available")  # empty source
    refused(g, "w>t0", "not-available")  # empty waste
    refused(g, "s>w", "not-available")  # the stock moves only by draw
    refused(g, "s>t0", "not-available")
    refused(g, "r0:2>t0", "not-available")  # runs only from tableau piles
    refused(g, "t1:2>t0", "not-available")  # longer than the pile
    rn = pos(RN, t0="~Qc~3d8h", t1="9s", f4=cards("K-A", "hs"), t2="9c8c")
    refused(rn, "t0:2>t1", "not-available")  # a face-down card
    refused(rn, "t0:3>t9", "not-available")
    refused(rn, "t2:2>t9", "not-available")  # not a run
    refused(rn, "f4>t9", "not-available")  # a sequence foundation never gives
    refused(g, "t1:9999>t0", "not-available")
    dealt = rules.deal(RA, "solrace")
    assert refused(dealt, "s>t1", "not-available").message.endswith(": the stock deals only by draw")
    # a reserve pile gives one card: said so, not how many cards it shows
    assert refused(dealt, "r0:2>t0", "not-available").message.endswith(": only tableau runs move together")
    # A count of thousands of digits is refused as any long one (int() of it raises past 4,300).
    refused(g, "t1:" + "1" * 5000 + ">t0", "not-available")
    with pytest.raises(rules.IllegalMove) as e:
        rules.replay(RA, "solrace", ["t1:" + "9" * 5000 + ">t0"])
    assert e.value.code == "not-available"
    fu = pos(FU, w="9c8c")
    refused(fu, "w:2>t0", "not-available")


def test_not_accepted():
    g = pos(RA, t0="5c", w="Ah", r0="9d")
    for move in ("t0>r0", "w>r1", "t0>s", "t0>w", "r0>w", "f0>t1"):
        refused(g, move, "not-available" if move.startswith("f0") else "not-accepted")
    refused(g, "t0>f0", "not-accepted")
    fu = pos(FU, **{f"f{i}": c for i, c in enumerate(["4c", "4d", "4h", "4s"] * 2)}, t0="6c5c", w="5h")
    refused(fu, "t0:2>f0", "not-accepted")  # runs never go to a foundation
    refused(fu, "w>f0", "not-accepted")
    rn = pos(RN, t0="Ah", t1=cards("K-2", "sh"), f0="Ad")
    refused(rn, "t0>f4", "not-accepted")  # single card onto a sequence foundation
    refused(rn, "t1:12>f4", "not-accepted")
    refused(rn, "t1:2>f1", "not-accepted")  # runs never go to a colour foundation
    refused(rn, "t0>f1", "not-accepted")  # pair rule


@pytest.mark.parametrize("game_id", list(rules.GAMES))
def test_refusal_messages_name_no_card_the_player_cannot_see(game_id):
    """The message of an illegal move goes to the player (docs/rules.md §7.3)."""
    g = rules.deal(game_id, "solrace")
    visible = {c for _, pile in g.view().piles for c in pile if c is not None}
    for src in g.game.pile_names:
        for dst in g.game.pile_names:
            try:
                g.check(f"{src}>{dst}")
            except rules.IllegalMove as e:
                named = set(re.findall(r"\b[A2-9TJQK][cdhs]\b", e.message))
                assert named <= visible, (f"{src}>{dst}", e.message)


def test_stock_empty():
    g = pos(RA, fill="r0")
    e = refused(g, "draw", "stock-empty")
    assert "stock" in e.message


def test_every_code_is_documented():
    assert set(rules.ILLEGAL_MOVE_CODES) == {
        "bad-notation",
        "no-such-pile",
        "same-pile",
        "not-available",
        "not-accepted",
        "stock-empty",
    }
    for code in rules.ILLEGAL_MOVE_CODES:
        assert f"``{code}``" in rules.__doc__


def test_every_code_is_in_the_rules_document():
    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("## 6. Illegal moves", 1)[1].split("\n## ", 1)[0]
    for code in rules.ILLEGAL_MOVE_CODES:
        assert f"| `{code}` |" in section, code


def test_replay_reports_the_index_of_the_bad_move():
    with pytest.raises(rules.IllegalMove) as info:
        rules.replay(RA, "solrace", ["draw", "draw", "t0>t0", "draw"])
    assert info.value.index == 2 and info.value.code == "same-pile"
    assert str(info.value).startswith("move 2: ")


# --- PositionError ----------------------------------------------------------

RA_START = rules.deal(RA, "solrace").to_text()
RN_START = rules.deal(RN, "solrace").to_text()
FU_START = rules.deal(FU, "solrace").to_text()


def replace_pile(text: str, name: str, cards: str) -> str:
    tokens = text.split(" ")
    return " ".join(f"{name}:{cards}" if t.split(":")[0] == name else t for t in tokens)


def pile_of(text: str, name: str) -> str:
    return next(t.split(":", 1)[1] for t in text.split(" ") if t.split(":")[0] == name)


def swap(text: str, a: str, b: str) -> str:
    """Exchange the contents of two piles (keeps the multiset)."""
    pa, pb = pile_of(text, a), pile_of(text, b)
    return replace_pile(replace_pile(text, a, pb), b, pa)


BAD_POSITIONS = {
    "empty": "",
    "not a string": None,
    "unknown game": RA_START.replace("racing-aces", "klondike", 1),
    "game only": "racing-aces",
    "unknown pile": RA_START.replace(" w:", " x:"),
    "missing pile": RA_START.replace(" w:", ""),
    "duplicate pile": RA_START + " w:",
    "out of order": RA_START.replace("f0: f1:", "f1: f0:"),
    "no colon": RA_START.replace("f0:", "f0"),
    "two lines": RA_START.replace(" r0:", "\nr0:"),
    "double space": RA_START.replace(" r0:", "  r0:"),
    "bad card code": RA_START.replace("w:", "w:1h"),
    "lowercase rank": RA_START.replace("r0:3h", "r0:th"),
    "odd length": RA_START.replace("t0:Kh", "t0:Kh5"),
    "missing card": RA_START.replace("t0:Kh", "t0:"),
    "extra card": RA_START.replace("w:", "w:Kh"),
    "two cards on a one-card tableau pile": replace_pile(
        replace_pile(RA_START, "t1", pile_of(RA_START, "t1") + pile_of(RA_START, "t0")), "t0", ""
    ),
    "tilde in racing aces": RA_START.replace("t0:Kh", "t0:~Kh"),
    "tilde in the stock": RN_START.replace(" s:", " s:~", 1),
    "tilde on t9": replace_pile(RN_START.replace("t8:3h", "t8:"), "t9", "~3h"),
    "more face-down than dealt": RN_START.replace("t7:3d", "t7:").replace("t6:~7s6c", "t6:~7s~3d6c"),
    "face down above face up": RN_START.replace("t6:~7s6c", "t6:7s~6c"),
    "face down on top": RN_START.replace("~8d3h", "~8d").replace("t9:", "t9:3h"),
    "foundation not started by its rank": replace_pile(RA_START.replace("t0:Kh", "t0:"), "f0", "Kh"),
    "foundation out of sequence": replace_pile(
        replace_pile(RA_START, "r2", pile_of(RA_START, "r2")[:-4]), "f0", "Ah3d"
    ),
    "fours-up foundation not from a 4": replace_pile(FU_START.replace("t0:3c", "t0:4c"), "f0", "3c"),
    "fours-up tableau not a run": replace_pile(FU_START.replace("t1:Qh", "t1:"), "t0", "3cQh"),
    "pair of same-colour aces": position_text(RN, f0="Ah", f1="Ad"),
    "partial sequence foundation": position_text(RN, f4=cards("K-2", "hs")),
    "sequence foundation not alternating": position_text(RN, f4=cards("K-A", "h")),
    "colour foundation mixing colours": position_text(RN, f0="Ah2s"),
    "colour foundation not from an ace": position_text(RN, f0="2h"),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_position_error(name):
    with pytest.raises(rules.PositionError):
        rules.from_text(BAD_POSITIONS[name])  # type: ignore[arg-type]


def test_position_error_is_a_value_error_with_a_message():
    with pytest.raises(ValueError, match="klondike"):
        rules.from_text("klondike f0:")


def test_good_positions_parse():
    pair = position_text(RN, f0="Ah", f1="As")
    seq = position_text(RN, f4=cards("K-A", "hs"))
    for text in (RA_START, RN_START, FU_START, pair, seq, RA_START + "\n", "  " + RA_START):
        g = rules.from_text(text)
        assert g.to_text() == text.strip()


BAD_VIEWS = {
    "unknown game": "klondike s:#0",
    "stock written as cards": rules.deal(RA, "solrace").to_text(),
    "stock count not a number": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#x"),
    "stock count with leading zero": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#0111"),
    "negative stock": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#-1"),
    "stock count in other digits": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#١١١"),
    "stock count a superscript": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#²"),
    "stock count too small": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#1"),
    "stock count too large": rules.deal(RA, "solrace").view_text().replace("s:#111", "s:#112"),
    # past int()'s 4,300 digits: a plain ValueError, its whole number in the message
    "stock count of 5,000 digits": rules.deal(RA, "solrace")
    .view_text()
    .replace("s:#111", "s:#" + "9" * 5000),
    "tilde in a view": rules.deal(RN, "solrace").view_text().replace("t0:??", "t0:~K"),
    "hidden card outside the tableau": rules.deal(RA, "solrace").view_text().replace("r0:3h", "r0:??"),
    "hidden above visible": rules.deal(RN, "solrace").view_text().replace("t6:??6c", "t6:6c??"),
    "too many copies": rules.deal(RA, "solrace").view_text().replace("w:", "w:KhKhKh"),
    "bad code": rules.deal(RA, "solrace").view_text().replace("w:", "w:Zz"),
}


@pytest.mark.parametrize("name", list(BAD_VIEWS))
def test_view_error(name):
    with pytest.raises(rules.PositionError) as refused:
        rules.view_from_text(BAD_VIEWS[name])
    assert len(str(refused.value)) < 200


def test_refusals_name_cards_with_suit_symbols_and_keep_their_codes():
    g = rules.deal(RA, "abc")
    top = g.pile("t0")[-1]
    with pytest.raises(rules.IllegalMove) as e:
        g.check("t0>t1")
    assert e.value.code == "not-accepted"
    assert (
        e.value.message == f"t1 does not take {rules.card_name(top)} on {rules.card_name(g.pile('t1')[-1])}"
    )
    assert (
        "♣" in e.value.message or "♦" in e.value.message or "♥" in e.value.message or "♠" in e.value.message
    )
    with pytest.raises(rules.IllegalMove) as e:
        g.check("t0>f0")
    assert e.value.code == "not-accepted" and e.value.message.endswith("when empty")
    assert [rules.card_name(c) for c in ("Th", "9c", "As", "Qd")] == ["10♥", "9♣", "A♠", "Q♦"]
    assert rules.card_name(60) == "9♣"  # a card id of the second deck


# --- the words of a refusal, read by players ---------------------------------


def _message(g: rules.Game, move: str) -> str:
    with pytest.raises(rules.IllegalMove) as info:
        g.check(move)
    return info.value.message


def _position_error(text: str | None) -> str:
    with pytest.raises(rules.PositionError) as info:
        rules.from_text(text)  # type: ignore[arg-type]
    return str(info.value)


def test_refusals_name_the_game_by_its_name_and_count_in_words():
    """A refusal is read by a player: the game's name (not its id), and 1 card / 2 cards,
    never "card(s)". Codes stay as they are."""
    g = rules.deal(RN, "solrace")
    assert _message(g, "w>f0") == "Rouge et Noir has no pile 'w'"
    assert refused(g, "w>f0", "no-such-pile")
    assert _message(rules.deal(FU, "solrace"), "r0>t0") == "Fours Up has no pile 'r0'"
    rn = pos(RN, t0="~Qc~3d8h", t1="9s", t2="~Kc9c8h")
    assert _message(rn, "t0:2>t1").endswith(": only 1 face-up card there")
    assert _message(rn, "t2:3>t1").endswith(": only 2 face-up cards there")
    assert _position_error(RA_START.replace(" w:", " x:")) == "Racing Aces has no pile 'x'"
    assert _position_error(RA_START.replace(" w:", "")) == "missing pile: w"
    assert _position_error(RA_START.replace(" w:", "").replace(" f0: ", " ")) == "missing piles: f0, w"
    assert _position_error(BAD_POSITIONS["tilde in the stock"]).startswith("s: 1 face-down card where")
    assert ": 2 face-down cards where" in _position_error(BAD_POSITIONS["more face-down than dealt"])
    assert "Racing Aces has each card exactly 3 times; wrong: " in _position_error(
        BAD_POSITIONS["missing card"]
    )
    assert "Fours Up has each card exactly twice; wrong: " in _position_error(
        FU_START.replace("t0:3c", "t0:")
    )
    for text in (_message(rn, "t0:2>t1"), _message(g, "w>f0")):
        assert "(s)" not in text and "rouge-et-noir" not in text
