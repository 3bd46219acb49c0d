"""Property tests over random playouts of every game (docs/rules.md §1.5, §6, §7).

Each example deals a random seed and plays random legal moves; after every
move the invariants below must hold, and every few moves the whole move
space (every pile pair and run length, plus malformed notation) is checked
against ``legal_moves()``.
"""

from __future__ import annotations

import random
from collections import Counter

from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import rules
from protocol.rules.cards import CODE

GAME_IDS = list(rules.GAMES)
PLAYOUT = settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


@settings(max_examples=examples(8), deadline=None)
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


def random_run_position(game_id: str, rnd: random.Random) -> rules.Game:
    """A position whose tableau piles are random runs (with face-down cards in
    Rouge et Noir): the states random play rarely reaches (long runs, a whole
    K..A run ready for a sequence foundation, several empty piles)."""
    game = rules.GAMES[game_id]
    pool = [f for f in range(52) for _ in range(game.decks)]
    rnd.shuffle(pool)
    rn = game_id == "rouge-et-noir"

    def take(rank: int, red: int | None) -> int | None:
        for n, f in enumerate(pool):
            if f % 13 + 1 == rank and (red is None or (f // 13 in (1, 2)) == red):
                return pool.pop(n)
        return None

    piles: dict[str, str] = {}
    for name in (n for n in game.pile_names if n.startswith("t")):
        if rnd.random() < 0.25:
            piles[name] = ""
            continue
        down = [pool.pop() for _ in range(rnd.randint(0, game.max_down[game.index[name]]))] if rn else []
        rank = rnd.randint(1, 13)
        length = rnd.randint(1, rank if rn else max(1, rank - 3))
        red = rnd.randint(0, 1)
        run = []
        for r in range(rank, rank - length, -1):
            f = take(r, red if rn else None)
            if f is None:
                break
            run.append(f)
            red = 1 - red
        if down and not run:
            run.append(down.pop())
        piles[name] = "".join("~" + CODE[f] for f in down) + "".join(CODE[f] for f in run)
    if game_id == "fours-up":
        # The eight 4s start on the foundations; keep the ones not in a run there.
        fours = [f for f in pool if f % 13 == 3]
        for f in fours:
            pool.remove(f)
        for i, f in enumerate(fours):
            piles[f"f{i}"] = CODE[f]
    if "w" in game.pile_names:
        n = rnd.randint(0, 5)
        piles["w"] = "".join(CODE[pool.pop()] for _ in range(n))
    piles["s"] = "".join(CODE[f] for f in pool[: rnd.randint(0, len(pool))])
    rest = pool[len(piles["s"]) // 2 :]
    spill = "w" if "w" in game.pile_names else "s"
    piles[spill] = piles.get(spill, "") + "".join(CODE[f] for f in rest)
    text = " ".join([game_id] + [f"{n}:{piles.get(n, '')}" for n in game.pile_names])
    return rules.from_text(text)


@settings(max_examples=examples(20), deadline=None)
@given(game_id=st.sampled_from(["rouge-et-noir", "fours-up"]), rnd=st.randoms(use_true_random=False))
def test_random_run_positions(game_id, rnd):
    g = random_run_position(game_id, rnd)
    check_invariants(g)
    check_move_space(g, rnd)
    for _ in range(10):
        legal = g.legal_moves()
        if not legal:
            break
        g.play(rnd.choice([m for m in legal if ":" in m] or legal))
        check_invariants(g)
    check_move_space(g, rnd)
