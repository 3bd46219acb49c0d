"""Post-race analysis finds the move that lost a won game."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from solver_helpers import exhaustive, fours_up_foundations

from protocol import rules
from protocol.solver import Analysis, SolveResult, analyze, analyze_from, solve
from protocol.solver.analysis import LATEST_WINNABLE_RUNS, plan

# Fours Up, fifteen cards from the end. Winnable: the waste's 3h onto the one
# free pile, then the waste unwinds onto the foundations (the stock's 3s goes
# home after the As and 2s under it). Drawing before the waste is unwound
# buries what the foundations need under a 3s that nothing takes: lost.
WINNABLE = (
    "fours-up "
    + fours_up_foundations("KAA3KA3K")
    + " t0:2c t1:2c t2:3c t3:3c t4:3d t5: s:3s w:2sAs3dAcAc2d2h2d3h"
)


def _play(start: rules.Game, moves: list[str]) -> rules.Game:
    g = start.copy()
    for move in moves:
        g.play(move)
    return g


@pytest.mark.parametrize(
    ("moves", "losing"),
    [
        (["draw", "w>t5"], 0),  # the first move loses
        (["t0>t5", "t5>t0", "draw", "w>t5"], 2),  # two harmless moves, then the draw loses
    ],
)
def test_finds_the_move_that_lost_the_game(moves: list[str], losing: int) -> None:
    start = rules.from_text(WINNABLE)
    # The border, independently of the analysis: a win replays from before
    # the losing move, and an exhaustive search finds none after it.
    before = _play(start, moves[:losing])
    assert _play(before, list(solve(before, nodes=20_000).line)).won
    assert exhaustive(_play(start, moves[: losing + 1])) is False
    result = analyze_from(start, moves, nodes=20_000)
    assert result.verdict == "lost-at"
    assert result.last_winnable == losing
    assert result.losing_move == moves[losing]
    assert result.losing_move_number == losing + 1
    assert _play(_play(start, moves[:losing]), list(result.line)).won
    assert result.text().startswith(
        f"won until move {losing + 1}, {moves[losing]}; a winning line from there: "
    )


def test_a_won_game_and_a_game_stopped_while_winnable() -> None:
    game, seed = "racing-aces", "7bbe074bf439994f8450c51b24bfc226"
    line = list(solve(rules.deal(game, seed), nodes=2_000).line)
    assert analyze(game, seed, line, nodes=2_000).verdict == "won"
    stopped = analyze(game, seed, line[: len(line) - 5], nodes=2_000)
    assert stopped.verdict == "still-winnable"
    assert rules.replay(game, seed, line[: len(line) - 5] + list(stopped.line)).won


def test_budget_runs_out_honestly() -> None:
    result = analyze("fours-up", "unknown", ["draw"] * 10, nodes=20)
    assert result.verdict == "unknown"
    assert result.nodes <= 20 * result.solves
    assert "could not tell within its search budget" in result.text()


def test_illegal_move_in_the_log_is_reported_with_its_index() -> None:
    with pytest.raises(rules.IllegalMove) as info:
        analyze("fours-up", "x", ["draw", "t0>t0"], nodes=10)
    assert info.value.index == 1


def test_deal_status_keeps_a_proof_apart_from_a_budget() -> None:
    """What was proved about the deal: a lost endgame is "lost" (and says so),
    a winnable one "won", a budget that ran out "unknown", never "lost"."""
    from test_solver import LOST

    from client.cli.analyze import deal_line

    lost = analyze_from(rules.from_text(LOST["fours-up"]), [], nodes=20_000)
    assert (lost.verdict, lost.deal) == ("never-winnable", "lost")
    assert "proved" in lost.text()
    start = rules.from_text(WINNABLE)
    played = analyze_from(start, ["draw", "w>t5"], nodes=20_000)
    assert (played.verdict, played.deal) == ("lost-at", "won")
    unknown = analyze("fours-up", "unknown", ["draw"] * 10, nodes=20)
    assert (unknown.verdict, unknown.deal) == ("unknown", "unknown")
    assert deal_line([("a", lost)]) == "deal: lost (proved: no line wins it)"
    assert deal_line([("a", unknown), ("b", played)]) == "deal: winnable (proved)"
    assert deal_line([("a", unknown)]).startswith("deal: unknown (the budget ran out")


def _drive(moves: list[str], truth: Callable[[int], str]) -> tuple[Analysis, list[int]]:
    """Runs `plan` over the racing-aces deal and `moves` with `truth(i)` standing in for the
    solver's answer after i moves; the Analysis and the positions asked for, in order."""
    steps = plan(rules.deal(*RACING), moves)
    asked = [next(steps)]
    try:
        while True:
            status = truth(asked[-1])
            line = ("draw",) if status == "won" else ()
            asked.append(steps.send(SolveResult(status, line, 10, 0.0)))  # type: ignore[arg-type]
    except StopIteration as done:
        return done.value, asked


RACING = ("racing-aces", "7bbe074bf439994f8450c51b24bfc226")


def test_an_end_not_proved_lost_looks_for_the_latest_winnable_position() -> None:
    """Winnable (and proved) up to move 40, unknown after: the plan halves the span after each
    unknown, for LATEST_WINNABLE_RUNS runs, and reports the latest win it proved."""
    moves = list(solve(rules.deal(*RACING), nodes=2_000).line)[:100]
    a, asked = _drive(moves, lambda i: "won" if i <= 40 else "unknown")
    assert asked == [0, 100, 50, 25, 37, 43, 40, 41]
    assert len(asked) == 2 + LATEST_WINNABLE_RUNS
    assert (a.verdict, a.last_winnable, a.first_lost, a.deal) == ("unknown", 40, None, "won")
    assert (a.solves, a.nodes) == (len(asked), 10 * len(asked))  # every run counted once
    assert "winnable after move 40" in a.text()


def test_a_loss_proved_while_looking_gives_the_border_after_all() -> None:
    """The end is unknown, but a probe on the way proves a loss: the border search follows."""
    moves = list(solve(rules.deal(*RACING), nodes=2_000).line)[:100]
    a, asked = _drive(moves, lambda i: "won" if i <= 30 else "lost" if i <= 70 else "unknown")
    assert asked[:3] == [0, 100, 50]
    assert (a.verdict, a.last_winnable, a.first_lost, a.losing_move) == ("lost-at", 30, 31, moves[30])
