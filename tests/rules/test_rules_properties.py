"""Property tests over random playouts of every game.

Each example deals a random seed and plays random legal moves; after every
move the invariants below must hold, and every few moves the whole move
space (every pile pair and run length, plus malformed notation) is checked
against ``legal_moves()``.
"""
from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import rules
from protocol.rules.cards import CODE

GAME_IDS = list(rules.GAMES)
PLAYOUT = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXTRA_NAMES = ["x0", "f16", "t10", "r4", "w", "r0", "s", "T0", "f01"]


def visible_codes(g: rules.Game) -> Counter:
    v = g.view()
    return Counter(c for _, cards in v.piles for c in cards if c is not None)


def check_invariants(g: rules.Game) -> None:
    game = g.game
    # Card conservation: every face exactly `decks` times.
    counts = Counter(f for p in g.piles for f in p)
    assert len(counts) == 52 and set(counts.values()) == {game.decks}
    assert sum(counts.values()) == game.total
    # Progress counters.
    home = sum(len(g.pile(n)) for n in game.pile_names if n.startswith("f"))
    assert g.cards_home == home and g.won == (home == game.total)
    assert g.stock_count == len(g.pile("s"))
    # Texts round-trip.
    text = g.to_text()
    again = rules.from_text(text)
    assert again == g and again.to_text() == text and again.cards_home == g.cards_home
    vt = g.view_text()
    view = g.view()
    assert view.to_text() == vt
    assert rules.view_from_text(vt) == view
    # The view holds every face-up card and nothing else.
    assert "~" not in vt and f"s:#{g.stock_count}" in vt.split(" ")
    assert "s" not in dict(view.piles)
    for name, cards in view.piles:
        real = g.pile(name)
        assert cards == tuple(None if c.startswith("~") else c for c in real)
    assert view.stock == g.stock_count and view.cards_home == g.cards_home


def all_notations(g: rules.Game) -> list[str]:
    names = g.game.pile_names
    out = ["draw"]
    for s in names:
        n = len(g.pile(s))
        for d in names:
            out.append(f"{s}>{d}")
            for k in range(2, min(n + 1, 14) + 1):
                out.append(f"{s}:{k}>{d}")
    return out


def check_move_space(g: rules.Game, rnd: random.Random) -> None:
    legal = g.legal_moves()
    assert len(legal) == len(set(legal)), "a move listed twice"
    legal_set = set(legal)
    space = all_notations(g)
    assert legal_set <= set(space)
    for move in space:
        assert g.is_legal(move) == (move in legal_set), move
    # Refused moves change nothing (sampled: to_text per move is the slow part).
    before = g.to_text()
    refused = [m for m in space if m not in legal_set]
    for move in rnd.sample(refused, min(15, len(refused))):
        try:
            g.play(move)
        except rules.IllegalMove as e:
            assert e.code in rules.ILLEGAL_MOVE_CODES and e.move == move
        else:
            raise AssertionError(f"{move} was played though not listed")
        assert g.to_text() == before
    # Garbage and foreign notation is refused the same way.
    names = list(g.game.pile_names) + EXTRA_NAMES
    for _ in range(15):
        k = rnd.choice(["", ":0", ":1", ":2", ":02", ":13", ":99", ":-1", ": 2"])
        move = f"{rnd.choice(names)}{k}{rnd.choice(['>', '>', ' >', '<'])}{rnd.choice(names)}"
        if move in legal_set:
            continue
        try:
            g.play(move)
        except rules.IllegalMove as e:
            assert e.code in rules.ILLEGAL_MOVE_CODES
        else:
            raise AssertionError(f"{move} was played though not listed")
        assert g.to_text() == before
    # Every listed move applies (on a copy), and says truthfully what it revealed.
    for move in rnd.sample(legal, min(25, len(legal))):
        c = g.copy()
        seen = visible_codes(c)
        result = c.apply(move)
        assert result.move == move and result.cards_home == c.cards_home
        new = visible_codes(c) - seen
        assert Counter(code for _, code in result.revealed) == new
        for name, code in result.revealed:
            assert code in c.pile(name)
    assert g.to_text() == before  # copies are independent


def choose(g: rules.Game, rnd: random.Random, legal: list[str]) -> str:
    # Plain uniform choice mostly shuffles cards between foundations; lean
    # towards draws and moves home so playouts reach late-game positions.
    if "draw" in legal and rnd.random() < 0.2:
        return "draw"
    home = [m for m in legal if m[0] != "f" and ">f" in m]
    if home and rnd.random() < 0.5:
        return rnd.choice(home)
    return rnd.choice(legal)


@PLAYOUT
@given(game_id=st.sampled_from(GAME_IDS), seed=st.text(max_size=12), rnd=st.randoms(use_true_random=False))
def test_random_playouts_keep_invariants(game_id, seed, rnd):
    g = rules.deal(game_id, seed)
    check_invariants(g)
    check_move_space(g, rnd)
    for step in range(60):
        legal = g.legal_moves()
        if not legal:
            break
        move = choose(g, rnd, legal)
        seen = visible_codes(g)
        result = g.apply(move)
        assert Counter(c for _, c in result.revealed) == visible_codes(g) - seen
        check_invariants(g)
        if step % 12 == 11:
            check_move_space(g, rnd)


@settings(max_examples=8, deadline=None)
@given(game_id=st.sampled_from(GAME_IDS), seed=st.text(max_size=8), rnd=st.randoms(use_true_random=False))
def test_long_playouts_reach_the_end_of_the_stock(game_id, seed, rnd):
    g = rules.deal(game_id, seed)
    moves = []
    for _ in range(1500):
        legal = g.legal_moves()
        if not legal or (g.stock_count == 0 and rnd.random() < 0.02):
            break
        move = choose(g, rnd, legal)
        g.play(move)
        moves.append(move)
    check_invariants(g)
    check_move_space(g, rnd)
    # The move log replays to the same position.
    assert rules.replay(game_id, seed, moves) == g


def test_check_and_is_legal_agree_with_legal_moves_for_fixed_games():
    rnd = random.Random(7)
    for game_id in GAME_IDS:
        g = rules.deal(game_id, "fixed")
        for _ in range(200):
            legal = g.legal_moves()
            if not legal:
                break
            for m in legal:
                g.check(m)
            g.play(choose(g, rnd, legal))
        check_invariants(g)


def test_codes_table_is_complete():
    assert len(set(CODE)) == 52
