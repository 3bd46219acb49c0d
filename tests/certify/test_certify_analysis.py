"""The server's analysis runs the analysis's plan one solver run per worker job: the same
answers as `analyze`, with the deal solved once per race."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from waiting import DEADLINE

from protocol import rules
from protocol.solver import analyze, solve
from server.certify import work
from server.certify.service import Certifier, analysis_entry
from server.config import Settings

GAME, SEED = "racing-aces", "7bbe074bf439994f8450c51b24bfc226"
NODES = 2_000


async def test_each_player_as_analyze_says_and_the_deal_solved_once(
    r, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = Certifier(r, Settings(solver_request_workers=1, certify_workers=0, analysis_nodes=NODES))
    executor = ThreadPoolExecutor(1)  # stands in for the worker process
    c.request_executor = executor
    runs: list[int] = []
    real = work.solve_after

    def counted(game: str, seed: str, moves: list[str], nodes: int) -> Any:
        runs.append(len(moves))
        return real(game, seed, moves, nodes)

    monkeypatch.setattr(work, "solve_after", counted)
    line = list(solve(rules.deal(GAME, SEED), nodes=NODES).line)
    players = [("p1", "ann", line), ("p2", "bob", line[:-5]), ("p3", "cy", line[:40] + ["draw"])]
    try:
        out = await asyncio.wait_for(c.analysis("R", GAME, SEED, players), DEADLINE * 4)
    finally:
        executor.shutdown(wait=True)
    assert out == [
        analysis_entry(p, name, analyze(GAME, SEED, moves, nodes=NODES)) for p, name, moves in players
    ]
    assert [e["verdict"] for e in out] == ["won", "still-winnable", out[2]["verdict"]]
    assert runs.count(0) == 1, runs  # p1 won: no run; p2 solves the deal, p3 reuses it
