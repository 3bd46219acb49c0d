"""`solrace analyze` on a replay document of the wrong shape: one line and exit 2 (the input
cannot be read), not a traceback; a document of other rules is refused as `verify` refuses it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from client.cli import analyze as a
from protocol import rules

GAME = "fours-up"
SEED = "example"


def document(**players: Any) -> dict[str, Any]:
    g = rules.deal(GAME, SEED)
    first = g.legal_moves()[0]
    doc: dict[str, Any] = {
        "game": GAME,
        "seed": SEED,
        "players": [{"player": "p1", "name": "ada", "moves": [[first, 1000]]}],
    }
    doc.update(players)
    return doc


def run(tmp_path: Path, doc: dict[str, Any]) -> int:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc))
    parser = argparse.ArgumentParser()
    a.add_arguments(parser)
    return a.run(parser.parse_args([str(path), "--nodes", "50"]))


def test_a_well_formed_document_is_analysed(tmp_path: Path, capsys: Any) -> None:
    assert run(tmp_path, document()) == 0
    assert "ada:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "players",
    [
        {"a": 1},  # a map
        ["x"],  # an entry not a map
        [{"player": "p1", "moves": 5}],  # moves not a list
        [{"player": "p1", "moves": [[7, 1000]]}],  # a move not a string
        [{"player": "p1", "name": ["x"], "moves": []}],  # a name not a string
    ],
)
def test_a_malformed_players_list_is_an_input_error(tmp_path: Path, capsys: Any, players: Any) -> None:
    assert run(tmp_path, document(players=players)) == 2
    out, err = capsys.readouterr()
    assert not out
    assert err.startswith("solrace analyze: the document is malformed (") and len(err.splitlines()) == 1, err


def test_a_document_of_other_rules_is_refused(tmp_path: Path, capsys: Any) -> None:
    """Its moves would re-play differently here: `verify` and `replay` refused it, analyze analysed it."""
    assert run(tmp_path, document(rules_version=rules.RULES_VERSION + 1)) == 2
    assert "rules_version" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags", [["--nodes", "0"], ["--nodes", "-5"], ["--seconds", "-1"], ["--seconds", "0"]]
)
def test_a_budget_of_nothing_is_a_usage_error(tmp_path: Path, flags: list[str], capsys: Any) -> None:
    """A solver run of no positions or no time answered "could not tell" after 0 positions."""
    parser = argparse.ArgumentParser()
    a.add_arguments(parser)
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args([str(tmp_path / "replay.json"), *flags])
    assert exit_.value.code == 2
    assert flags[0] in capsys.readouterr().err
