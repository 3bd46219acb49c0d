"""Post-race analysis: where a player's game stopped being winnable.

Along one played game, winnability can only be lost, never regained: every
position after a lost one is reachable from it, so it is lost too; every
position before a winnable one reaches it, so it is winnable too. The
positions P0 (the deal), P1 (after the first move), ... therefore split into
a winnable prefix and a lost rest, and the move that crosses the border is
"the move that lost it". A binary search over the played positions finds the
border with about log2(moves) solver runs instead of one per move. Where the
end of the game is not proved lost there is no border to find, and a few more
runs (``LATEST_WINNABLE_RUNS``) look for the latest position proved winnable.

Pure: the caller gives the game, the seed, the moves and a budget; caching
the result (it never changes for a finished race) is left to the caller.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Literal, cast

from protocol import rules
from protocol.rules.engine import Game

from .search import SolveResult, Status, solve

Verdict = Literal["won", "never-winnable", "lost-at", "still-winnable", "unknown"]

#: The budget of each solver run of an analysis, the server's (`--analysis-nodes`) and
#: `solrace analyze`'s: with a node budget only the solver is deterministic, so the same
#: budget gives the terminal the same answer as the browser's result view. About 1-2 CPU
#: seconds per run where the answer stays unknown (docs/benchmarks.md, "Solver").
ANALYSIS_NODES = 20_000


@dataclass(frozen=True, slots=True)
class Analysis:
    """The outcome of ``analyze``.

    ``verdict``:

    * "won": the player won (nothing was lost);
    * "never-winnable": the deal itself is proved lost;
    * "lost-at": the position after ``last_winnable`` moves was winnable
      (``line`` wins from there) and the position after the next move,
      ``losing_move`` (1-based number ``losing_move_number``), is proved lost;
    * "still-winnable": the player stopped in a position that could still be
      won (``line`` wins from the end of their moves);
    * "unknown": the budget ran out before the border was pinned down;
      ``last_winnable`` (with ``line``) and ``first_lost`` say what was proved
      (None where nothing was).

    ``nodes`` is the total the solver spent, ``solves`` how many runs.

    ``deal`` is what was proved about the deal itself (the position before
    the first move): "won" (winnable: some position of the game was proved
    winnable, or the player won), "lost" (proved: no line wins) or "unknown"
    (the budget ran out first). A game can be "unknown" where the deal is
    "won" (the border between winnable and lost was not pinned down).
    """

    verdict: Verdict
    last_winnable: int | None
    first_lost: int | None
    losing_move: str | None
    line: tuple[str, ...]
    nodes: int
    solves: int
    deal: Status = "unknown"

    @property
    def losing_move_number(self) -> int | None:
        return None if self.last_winnable is None or self.losing_move is None else self.last_winnable + 1

    def text(self) -> str:
        """One sentence for people, e.g. "won until move 37, t2>f5; ..."."""
        line = " ".join(self.line)
        if self.verdict == "won":
            return "won"
        if self.verdict == "never-winnable":
            return "the deal could not be won (proved)"
        if self.verdict == "lost-at":
            return (
                f"won until move {self.losing_move_number}, {self.losing_move}; "
                f"a winning line from there: {line}"
            )
        if self.verdict == "still-winnable":
            return f"still winnable at the end; a winning line from there: {line}"
        known = []
        if self.last_winnable is not None:
            known.append(f"winnable after move {self.last_winnable} ({line})")
        if self.first_lost is not None:
            known.append(f"lost after move {self.first_lost}")
        return "the solver could not tell within its search budget where the win was lost" + (
            ": " + "; ".join(known) if known else ""
        )


def _positions(start: Game, moves: list[str]) -> list[Game]:
    """P0 .. Pn: the start and the position after each move (IllegalMove if one is)."""
    g = start.copy()
    out = [g.copy()]
    for i, move in enumerate(moves):
        try:
            g.play(move)
        except rules.IllegalMove as e:
            e.index = i
            raise
        out.append(g.copy())
    return out


def analyze(
    game_id: str,
    seed: str,
    moves: list[str],
    *,
    nodes: int = ANALYSIS_NODES,
    seconds: float | None = None,
) -> Analysis:
    """Find the last winnable position of a played game and the move that lost it.

    ``nodes`` and ``seconds`` are the budget of each solver run (about
    ``log2(len(moves)) + 2`` runs). Raises IllegalMove (with ``.index``) if a
    move is illegal.
    """
    return analyze_from(rules.deal(game_id, seed), moves, nodes=nodes, seconds=seconds)


def analyze_from(
    start: Game,
    moves: list[str],
    *,
    nodes: int = ANALYSIS_NODES,
    seconds: float | None = None,
) -> Analysis:
    """``analyze`` from any start position (``start`` is not changed)."""
    positions = _positions(start, list(moves))
    steps = plan(start, moves)
    try:
        at = next(steps)
        while True:
            at = steps.send(solve(positions[at], nodes=nodes, seconds=seconds))
    except StopIteration as done:
        return cast(Analysis, done.value)


#: Solver runs an analysis may add, when the end of a game is not proved lost, to find a
#: later position than the deal proved winnable: "winnable after move 223" tells a player
#: more than "after move 0". Each run halves the span left to search.
LATEST_WINNABLE_RUNS = 6

#: What ``plan`` is: it yields a move count, is sent that position's SolveResult, returns the Analysis.
Plan = Generator[int, SolveResult, Analysis]


def plan(start: Game, moves: list[str]) -> Plan:
    """The analysis as a dialogue with whoever runs the solver.

    Yields ``i``: solve the position after the first ``i`` moves, and send the result
    back; returns the Analysis. ``analyze_from`` solves here and now; the server sends
    each run to a worker process on its own, so that a hint asked meanwhile waits for one
    run, not for a player's whole analysis, and the deal is solved once per race.
    Raises IllegalMove (with ``.index``) before the first yield if a move is illegal.
    """
    steps = _border(start, moves)
    spent = runs = 0
    try:
        at = next(steps)
        while True:
            result = yield at
            spent, runs = spent + result.nodes, runs + 1
            at = steps.send(result)
    except StopIteration as done:
        return replace(cast(Analysis, done.value), nodes=spent, solves=runs)


def _border(start: Game, moves: list[str]) -> Plan:
    """``plan``'s search, the solver's runs counted by ``plan`` (its Analysis says 0 of each)."""
    n = len(moves)
    if _positions(start, moves)[-1].won:
        return Analysis("won", n, None, None, (), 0, 0, "won")
    first = yield 0
    if first.lost:
        return Analysis("never-winnable", None, 0, None, (), 0, 0, "lost")
    last = (yield n) if n else first
    if last.won:
        return Analysis("still-winnable", n, None, None, last.line, 0, 0, "won")
    # Invariant: positions[lo] winnable (line lo_line), positions[hi] lost;
    # None where not proved yet.
    lo: int | None = 0 if first.won else None
    lo_line = first.line
    hi: int | None = n if last.lost else None
    if lo is None:
        return Analysis("unknown", None, hi, None, lo_line, 0, 0, "unknown")
    if hi is None:
        # No proved loss, so no border to pin down: look for the latest position proved
        # winnable instead, halving the span after an unknown (positions before a
        # winnable one are winnable, so a later win is worth more). A loss proved on
        # the way gives a border after all.
        top = n
        for _ in range(LATEST_WINNABLE_RUNS):
            if top - lo <= 1:
                break
            mid = (lo + top) // 2
            result = yield mid
            if result.won:
                lo, lo_line = mid, result.line
            elif result.lost:
                hi = mid
                break
            else:
                top = mid
        if hi is None:
            return Analysis("unknown", lo, None, None, lo_line, 0, 0, "won")
    # Positions nearer the end have fewer cards left to play and smaller
    # spaces to exhaust, so after an unknown the search probes between it and
    # the first proved loss; ``below`` is the last unknown probe.
    below = lo
    while hi - lo > 1:
        mid = (max(lo, below) + hi) // 2
        if mid <= max(lo, below):
            return Analysis("unknown", lo, hi, None, lo_line, 0, 0, "won")
        result = yield mid
        if result.won:
            lo, lo_line = mid, result.line
        elif result.lost:
            hi = mid
        else:
            below = mid
    return Analysis("lost-at", lo, hi, moves[lo], lo_line, 0, 0, "won")
