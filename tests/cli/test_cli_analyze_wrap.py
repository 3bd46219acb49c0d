"""`solrace analyze` wraps a player's long winning line to the terminal's width, breaking
only between moves, with a hanging indent (80 columns when the output is not a terminal)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli import main
from protocol import rules
from protocol.solver import solve

GAME, SEED = "racing-aces", "7bbe074bf439994f8450c51b24bfc226"


def test_wrap_breaks_between_moves_with_a_hanging_indent() -> None:
    from client.cli.analyze import wrap

    moves = [f"t{i % 8}:{i % 3 + 1}>t{(i + 1) % 8}" for i in range(60)]
    text = "ann: still winnable at the end; a winning line from there: " + " ".join(moves)
    lines = wrap(text, 40).splitlines()
    assert len(lines) > 5
    assert all(len(line) <= 40 for line in lines)
    assert all(line.startswith("    ") and not line.startswith("     ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == text  # no move split, none lost
    # a move wider than the room stays whole on its own line
    assert wrap("a: " + "x" * 30, 12).splitlines() == ["a:", "    " + "x" * 30]
    assert wrap("short", 80) == "short"


@pytest.mark.parametrize("columns", [None, "60"])
def test_analyze_output_fits_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)  # not a terminal under pytest: 80
    else:
        monkeypatch.setenv("COLUMNS", columns)
    width = int(columns or 80)
    line = list(solve(rules.deal(GAME, SEED), nodes=2_000).line)
    doc = {"game": GAME, "seed": SEED, "players": [{"player": "p2", "name": "stopper", "moves": line[:3]}]}
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc))
    assert main(["analyze", str(path), "--nodes", "2000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{rules.GAMES[GAME].name} · seed {SEED}"  # as the replay viewers head it
    start = next(i for i, text in enumerate(out) if text.startswith("stopper: "))
    player = out[start:]
    assert len(player) > 2 and all(len(text) <= width for text in out)
    assert all(text.startswith("    ") for text in player[1:])
    words = " ".join(text.strip() for text in player).split()
    shown = words[words.index("there:") + 1 : next(i for i, w in enumerate(words) if w.startswith("["))]
    # the moves read back whole: they play on from where the player stopped
    game = rules.deal(GAME, SEED)
    for move in line[:3] + shown:
        game.play(move)
    assert len(shown) > 20
