"""Property tests over random playouts of every game (docs/rules.md §1.5, §6, §7).

Each example deals a random seed and plays random legal moves; after every
move the invariants below must hold, and every few moves the whole move
space (every pile pair and run length, plus malformed notation) is checked
against ``legal_moves()``.

Every property test runs once per game (pytest parametrize, each with its own
examples), so that no run can miss a game.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import rules
from protocol.rules.cards import CODE
from protocol.rules.games import Kind

GAME_IDS = list(rules.GAMES)
PER_GAME = pytest.mark.parametrize("game_id", GAME_IDS)
PLAYOUT = settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


@PER_GAME
@PLAYOUT
@given(seed=st.text(max_size=12), rnd=st.randoms(use_true_random=False))
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


@PER_GAME
@settings(max_examples=examples(4), deadline=None)
@given(seed=st.text(max_size=8), rnd=st.randoms(use_true_random=False))
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
    """A position with random runs in the tableau (with face-down cards in
    Rouge et Noir) and random foundations, reserves, waste and stock, often an
    empty one: the states random play rarely reaches (long runs, a whole K..A
    run ready for a sequence foundation, full foundations, several empty piles,
    an empty stock with cards left elsewhere)."""
    game = rules.GAMES[game_id]
    pool = [f for f in range(52) for _ in range(game.decks)]
    rnd.shuffle(pool)
    rn = game_id == "rouge-et-noir"

    def take(rank: int, red: int | None = None) -> int | None:
        for n, f in enumerate(pool):
            if f % 13 + 1 == rank and (red is None or (f // 13 in (1, 2)) == red):
                return pool.pop(n)
        return None

    def take_face(f: int) -> int | None:
        if f in pool:
            pool.remove(f)
            return f
        return None

    def length(full: int) -> int:
        return rnd.choice([0, rnd.randint(1, full), full])

    piles: dict[str, str] = {}
    down: dict[str, list[int]] = {}
    runs: dict[str, list[int]] = {}
    tableau = [p for p in game.piles if p.name.startswith("t")]
    for p in tableau:
        down[p.name], runs[p.name] = [], []
        if rnd.random() < 0.25:
            continue
        if rn:
            down[p.name] = [pool.pop() for _ in range(rnd.randint(0, game.max_down[game.index[p.name]]))]
        rank = rnd.randint(1, 13)
        if p.kind == Kind.SINGLE:
            size = 1
        else:  # Rouge et Noir down to any rank; Fours Up runs end at a 4 at the lowest
            size = rnd.randint(1, rank if rn else max(1, rank - 3))
        red = rnd.randint(0, 1)
        for r in range(rank, rank - size, -1):
            f = take(r, red if rn else None)
            if f is None:
                break
            runs[p.name].append(f)
            red = 1 - red
        if down[p.name] and not runs[p.name]:
            runs[p.name].append(down[p.name].pop())
    # Foundations: Racing Aces and Double Aces and Kings from their start rank;
    # Fours Up from the 4s not in a run, then up in suit with the wrap; Rouge et
    # Noir one red and one black colour pile per pair, and some whole sequences.
    found: dict[str, list[int]] = {}
    if game_id == "fours-up":
        fours = [f for f in pool if f % 13 == 3]
        for f in fours:
            pool.remove(f)
        for i, f in enumerate(fours):
            found[f"f{i}"] = [f]
            suit = f // 13
            for r in [5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2, 3][: length(12)]:
                g = take_face(suit * 13 + r - 1)
                if g is None:
                    break
                found[f"f{i}"].append(g)
    for p in game.piles:
        if p.kind == Kind.FOUNDATION:
            full = 14 - p.start if p.step > 0 else p.start
            found[p.name] = []
            for r in range(p.start, p.start + p.step * length(full), p.step):
                f = take(r)
                if f is None:
                    break
                found[p.name].append(f)
        elif p.kind == Kind.COLOUR and p.partner and p.name < p.partner:
            red = rnd.randint(0, 1)
            for name, colour in ((p.name, red), (p.partner, 1 - red)):
                found[name] = []
                for r in range(1, length(13) + 1):
                    f = take(r, colour)
                    if f is None:
                        break
                    found[name].append(f)
        elif p.kind == Kind.SEQUENCE and rnd.random() < 0.2:
            red = rnd.randint(0, 1)
            seq = [take(r, (red + r) % 2) for r in range(13, 0, -1)]
            if None in seq:
                pool.extend(f for f in seq if f is not None)
            else:
                found[p.name] = seq  # type: ignore[assignment]
    for name, fs in found.items():
        piles[name] = "".join(CODE[f] for f in fs)
    for p in game.piles:
        if p.kind == Kind.RESERVE:
            piles[p.name] = "".join(CODE[pool.pop()] for _ in range(min(len(pool), rnd.randint(0, 13))))
    if "w" in game.pile_names:
        piles["w"] = "".join(CODE[pool.pop()] for _ in range(min(len(pool), rnd.randint(0, 5))))
    # The stock: empty a third of the time. What is left goes to the waste, or
    # in Rouge et Noir face up beneath the runs (as draws leave cards there).
    n = 0 if rnd.random() < 1 / 3 else rnd.randint(0, len(pool))
    piles["s"] = "".join(CODE[f] for f in pool[:n])
    rest = pool[n:]
    if "w" in game.pile_names:
        piles["w"] += "".join(CODE[f] for f in rest)
        rest = []
    middle: dict[str, list[int]] = {p.name: [] for p in tableau}
    for f in rest:
        middle[rnd.choice(tableau).name].append(f)
    for p in tableau:
        name = p.name
        piles[name] = "".join("~" + CODE[f] for f in down[name]) + "".join(
            CODE[f] for f in middle[name] + runs[name]
        )
    text = " ".join([game_id] + [f"{n}:{piles.get(n, '')}" for n in game.pile_names])
    return rules.from_text(text)


@PER_GAME
@settings(max_examples=examples(10), deadline=None)
@given(rnd=st.randoms(use_true_random=False))
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
