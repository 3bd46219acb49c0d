"""The engine against an independent reading of docs/rules.md (tests/rules/independent_rules.py).

The property tests of test_rules_properties.py check the engine against
itself (``is_legal`` against ``legal_moves``); this test checks it against a
second implementation written from the document. It plays random games of
every game and, at every position:

- compares the engine's ``legal_moves()`` with the checker's, as sets (and
  checks the list repeats no move and starts with ``draw`` when it is legal,
  §1.6);
- plays one move on both and compares the whole resulting position (every
  pile, face-down cards, the stock), ``cards_home``, ``won`` and the cards the
  move revealed (§7.4), automatic effects included (refill, flip, draw);
- every few positions, asks the engine's ``is_legal`` and ``play`` about the
  checker's *candidate* moves, moves that only the rules about their source
  (face-down cards, runs, piles that never give, the stock's end) make illegal,
  which ``legal_moves`` alone cannot show the engine enforces.

The games are random deals played with a mix of moves that reaches deep into
them; random positions full of long runs, full foundations and empty piles
(``random_run_position``), which deals reach only rarely; and positions one
move away from a win. Coverage counts make sure the test cannot go shallow:
every kind of move each game's section allows, and every corner rule the
checker knows, must have been listed, every automatic effect must have
happened, and some move must have won the game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import independent_rules as checker
import pytest
from depth import examples
from rules_helpers import cards, pos
from test_rules_properties import choose, random_run_position

from protocol import rules

GAME_IDS = list(rules.GAMES)
#: Random deals per game, and moves played in each: enough to empty the stock in
#: Racing Aces, Rouge et Noir and often Fours Up, so that late-game rules get their turn.
DEALS = examples(4)
MOVES_PER_DEAL = 250
#: Random positions per game from random_run_position, and moves played from each.
RUN_POSITIONS = examples(60)
MOVES_PER_RUN_POSITION = 6
#: Games played from a position one card away from a win, and their moves.
NEAR_WINS = 3
MOVES_PER_NEAR_WIN = 10

#: Ask ``is_legal`` and ``play`` about the checker's candidate moves at the first
#: position of every game, at every this many moves after it, and at the last one.
CANDIDATES_EVERY = 3

#: A chooser of the next move: (game, random source, legal moves) -> move.
Pick = Callable[[rules.Game, random.Random, list[str]], str]


@dataclass
class Tally:
    """What the test has seen of one game."""

    positions: int = 0
    listed: Counter[str] = field(default_factory=Counter)
    special_cases: Counter[str] = field(default_factory=Counter)
    effects: Counter[str] = field(default_factory=Counter)
    wins: int = 0


def choose_deep(g: rules.Game, rnd: random.Random, legal: list[str]) -> str:
    """A move that leans towards runs, moves home and draws (``choose``), and
    mostly leaves the foundations alone (taking cards back undoes progress), so
    that random play builds long runs, gets through the stock and brings many
    cards home."""
    if rnd.random() < 0.9:
        legal = [move for move in legal if move[0] != "f"] or legal
    runs = [move for move in legal if ":" in move]
    if runs and rnd.random() < 0.3:
        return rnd.choice(runs)
    return choose(g, rnd, legal)


def describe(position: checker.Position, moves: list[str]) -> str:
    """Moves with their kinds, for a failure message: ``t0>t9 (tableau > empty tableau), ...``."""
    described = [
        move if move == "draw" else f"{move} ({checker.move_kind(position, *checker.parse_move(move))})"
        for move in moves
    ]
    return ", ".join(described) or "-"


def compare_legal_moves(
    g: rules.Game, position: checker.Position, tally: Tally, candidates: bool
) -> list[str]:
    """Assert the engine lists exactly the checker's moves, and (if ``candidates``)
    that it judges the checker's candidate moves alike; return the engine's list."""
    engine = g.legal_moves()
    expected = checker.legal_moves(position)
    if set(engine) != set(expected):
        only_engine = sorted(set(engine) - set(expected))
        only_checker = sorted(set(expected) - set(engine))
        pytest.fail(
            "the engine and docs/rules.md (independent checker) disagree on the legal moves of\n"
            f"  {g.to_text()}\n"
            f"listed only by the engine:  {describe(position, only_engine)}\n"
            f"listed only by the checker: {describe(position, only_checker)}",
            pytrace=False,
        )
    assert len(engine) == len(set(engine)), f"a move listed twice in {engine}\n  {g.to_text()}"
    if "draw" in expected:
        assert engine[0] == "draw", f"draw is not listed first: {engine}\n  {g.to_text()}"
    if candidates:
        compare_candidate_moves(g, position, expected)
    tally.positions += 1
    tally.listed.update(expected.values())
    for move in expected:
        tally.special_cases.update(checker.special_cases(position, move))
    return engine


def compare_candidate_moves(g: rules.Game, position: checker.Position, expected: dict[str, str]) -> None:
    """Assert ``is_legal`` and ``play`` accept exactly the legal ones of the checker's
    candidate moves, and that the refused ones change nothing (§6)."""
    for move in checker.candidate_moves(position):
        legal = move in expected
        if g.is_legal(move) != legal:
            pytest.fail(
                f"the engine's is_legal({move!r}) is {not legal}, but by docs/rules.md"
                f" (independent checker) the move is {'legal' if legal else 'illegal'} in\n"
                f"  {position.to_text()}",
                pytrace=False,
            )
        if not legal:
            try:
                g.play(move)
            except rules.IllegalMove:
                continue
            pytest.fail(
                f"the engine played {move!r}, illegal by docs/rules.md (independent checker), in\n"
                f"  {position.to_text()}\nleading to\n  {g.to_text()}",
                pytrace=False,
            )
    assert g.to_text() == position.to_text(), f"a refused move changed the position\n  {position.to_text()}"


def endings(text: str, other: str) -> tuple[str, str]:
    """Two different pile texts, quoted, with most of their common beginning cut
    off (a stock text is long): ``'…2dKd'`` and ``'…2d'``."""
    common = 0
    while common < min(len(text), len(other)) and text[common] == other[common]:
        common += 1
    cut = max(0, common - 4)
    mark = "…" if cut else ""
    return repr(mark + text[cut:]), repr(mark + other[cut:])


def compare_move(g: rules.Game, position: checker.Position, move: str, tally: Tally) -> checker.Position:
    """Play ``move`` on the engine and on the checker, assert they agree on its
    outcome, and return the new position as the checker reads it."""
    expected = checker.play(position, move)
    result = g.apply(move)
    after = checker.Position.from_text(g.to_text())
    want = expected.position
    differences = []
    if after != want:
        for name in want.piles:
            if after.pile_text(name) != want.pile_text(name):
                engine_pile, checker_pile = endings(after.pile_text(name), want.pile_text(name))
                differences.append(f"  {name}: engine {engine_pile}, checker {checker_pile}")
    facts = {
        "cards_home": (g.cards_home, want.cards_home),
        "won": (g.won, want.won),
        "result.cards_home": (result.cards_home, want.cards_home),
        "result.won": (result.won, want.won),
        "stock_count": (g.stock_count, len(want.piles["s"])),
        "revealed": (list(result.revealed), expected.revealed),
    }
    differences += [f"  {what}: engine {e!r}, checker {c!r}" for what, (e, c) in facts.items() if e != c]
    if differences:
        pytest.fail(
            f"the engine and docs/rules.md (independent checker) disagree on what {move} does in\n"
            f"  {position.to_text()}\n"
            f"the engine leads to\n  {g.to_text()}\n"
            f"the checker to\n  {want.to_text()}\n"
            "differences:\n" + "\n".join(differences),
            pytrace=False,
        )
    tally.effects.update(expected.effects)
    tally.wins += want.won
    return after


def play_and_compare(
    g: rules.Game, rnd: random.Random, moves: int, tally: Tally, pick: Pick = choose_deep
) -> None:
    """Play up to ``moves`` random moves, comparing every position and every move."""
    position = checker.Position.from_text(g.to_text())
    for step in range(moves):
        legal = compare_legal_moves(g, position, tally, candidates=step % CANDIDATES_EVERY == 0)
        if not legal:
            return
        position = compare_move(g, position, pick(g, rnd, legal), tally)
    compare_legal_moves(g, position, tally, candidates=True)


def prefer_runs(g: rules.Game, rnd: random.Random, legal: list[str]) -> str:
    """Any run if there is one (random positions are full of long runs)."""
    return rnd.choice([move for move in legal if ":" in move] or legal)


def rotated(suits: str, n: int) -> str:
    """``suits`` begun at its ``n``-th letter: ``rotated("cdhs", 1) == "dhsc"``."""
    return suits[n % len(suits) :] + suits[: n % len(suits)]


#: Every foundation of each game full, bottom card first (§2.1, §3.1, §4.1, §5.1),
#: with each card exactly as many times as the game has decks.
FULL_FOUNDATIONS: dict[str, list[str]] = {
    "racing-aces": [
        cards(ranks, rotated("cdhs", i)) for ranks in ("A-K", "6-A", "7-K", "K-A") for i in range(4)
    ],
    "double-aces-and-kings": [cards(ranks, rotated("cdhs", i)) for ranks in ("A-K", "K-A") for i in range(8)],
    "rouge-et-noir": [cards("A-K", suits) for suits in ("hd", "cs", "dh", "sc")]
    + [cards("K-A", suits) for suits in ("hc", "sd", "ds", "ch")],
    "fours-up": [cards("4-K", suit) + cards("A-3", suit) for suit in "cdhscdhs"],
}


#: The foundation whose top cards are lifted onto t0 for a near-win position, and
#: how many: one card, and in Rouge et Noir also a whole sequence.
NEAR_WIN_LIFTS: dict[str, list[tuple[str, int]]] = {
    "racing-aces": [("f0", 1)],
    "double-aces-and-kings": [("f0", 1)],
    "rouge-et-noir": [("f0", 1), ("f4", 13)],
    "fours-up": [("f0", 1)],
}


def near_win_position(game_id: str, foundation: str, count: int) -> rules.Game:
    """Every card on the foundations but the top ``count`` cards of ``foundation``,
    which lie face up on t0 (one move from a win, §1.5)."""
    piles = {f"f{i}": pile for i, pile in enumerate(FULL_FOUNDATIONS[game_id])}
    piles["t0"] = piles[foundation][-2 * count :]
    piles[foundation] = piles[foundation][: -2 * count]
    return pos(game_id, **piles)


def play_games(game_id: str) -> Tally:
    """Every deal and random position this test plays for one game."""
    tally = Tally()
    game_number = GAME_IDS.index(game_id)
    for n in range(DEALS):
        rnd = random.Random(1000 * game_number + n)
        play_and_compare(rules.deal(game_id, f"independent-{n}"), rnd, MOVES_PER_DEAL, tally)
    for n in range(RUN_POSITIONS):
        rnd = random.Random(1000 * game_number + n)
        g = random_run_position(game_id, rnd)
        play_and_compare(g, rnd, MOVES_PER_RUN_POSITION, tally, pick=prefer_runs if n % 2 else choose_deep)
    for foundation, count in NEAR_WIN_LIFTS[game_id]:
        for n in range(NEAR_WINS):
            rnd = random.Random(1000 * game_number + n)
            g = near_win_position(game_id, foundation, count)
            play_and_compare(g, rnd, MOVES_PER_NEAR_WIN, tally)
    return tally


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_engine_agrees_with_the_independent_checker(game_id: str) -> None:
    tally = play_games(game_id)
    unknown = set(tally.listed) - checker.MOVE_KINDS[game_id]
    assert not unknown, f"the checker lists moves of kinds its table lacks: {unknown}"
    missing = sorted(checker.MOVE_KINDS[game_id] - set(tally.listed))
    assert not missing, f"{game_id}: no position listed a move of these kinds: {missing}"
    missing = sorted(checker.SPECIAL_CASES[game_id] - set(tally.special_cases))
    assert not missing, f"{game_id}: no position listed a move that needs {missing}"
    missing = sorted(checker.EFFECTS[game_id] - set(tally.effects))
    assert not missing, f"{game_id}: no move had these effects: {missing}"
    assert tally.wins, f"{game_id}: no move won the game"


def test_the_checker_reads_and_writes_position_texts() -> None:
    for game_id in GAME_IDS:
        g = rules.deal(game_id, "texts")
        g.play("draw")
        position = checker.Position.from_text(g.to_text())
        assert position.to_text() == g.to_text()
        assert position.cards_home == g.cards_home
        assert all(position.piles[name] == [c.lstrip("~") for c in g.pile(name)] for name in position.piles)
        assert all(position.face_down[name] == "".join(g.pile(name)).count("~") for name in position.piles)
