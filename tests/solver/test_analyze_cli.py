"""`solrace analyze` on a replay file, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli import main
from protocol import rules
from protocol.solver import solve

GAME, SEED = "racing-aces", "7bbe074bf439994f8450c51b24bfc226"


def test_analyze_a_replay_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = list(solve(rules.deal(GAME, SEED), nodes=2_000).line)
    doc = {
        "game": GAME,
        "seed": SEED,
        "ranking": [],
        "players": [
            {"player": "p1", "name": "winner", "moves": [[m, 1000 + i] for i, m in enumerate(line)]},
            {"player": "p2", "name": "stopper", "moves": [[m, 1000 + i] for i, m in enumerate(line[:-3])]},
        ],
    }
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc))
    assert main(["analyze", str(path), "--nodes", "2000"]) == 0
    out = capsys.readouterr().out
    assert "winner: won" in out
    assert "stopper: still winnable at the end; a winning line from there: " in out
    assert "deal: winnable (proved)" in out


def test_analyze_refuses_an_illegal_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"game": GAME, "seed": SEED, "players": [{"player": "p1", "moves": [["t0>t0", 1]]}]}
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc))
    assert main(["analyze", str(path)]) == 2
    assert "p1: illegal move log" in capsys.readouterr().err


def test_analyze_says_what_it_is_analysing() -> None:
    """A run takes seconds per player: the terminal hears whose log is being analysed."""
    from client.cli.analyze import analyze_document

    line = list(solve(rules.deal(GAME, SEED), nodes=2_000).line)
    doc = {
        "game": GAME,
        "seed": SEED,
        "players": [{"player": "p1", "name": "ann", "moves": line[:5]}, {"player": "p2", "moves": line[:2]}],
    }
    heard: list[str] = []
    results = analyze_document(doc, nodes=2_000, progress=heard.append)
    assert heard == ["analysing ann's 5 moves (1 of 2)…", "analysing p2's 2 moves (2 of 2)…"]
    assert [who for who, _ in results] == ["ann", "p2"]


def test_analyze_uses_the_servers_budget_by_default() -> None:
    """`solrace analyze` with no --nodes runs the server's analysis budget, so that the terminal
    tells a player what the browser's result view told them (the solver is deterministic
    under a node budget)."""
    import argparse

    from client.cli import analyze as analyze_cli
    from protocol.solver import ANALYSIS_NODES
    from server.config import Settings

    parser = argparse.ArgumentParser()
    analyze_cli.add_arguments(parser)
    assert parser.parse_args(["replay.json"]).nodes == Settings().analysis_nodes == ANALYSIS_NODES
