"""`solrace bench` refuses a game or a race size the server would refuse, before it starts
anything: `--game nosuch`, `--players 0` and `--players 9` each started the servers and ended
in a traceback (`RuntimeError: unknown-game`, `IndexError`, `RuntimeError: bad-message`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["--duration", "1", "--warmup", "0", "--races", "2", "--slices", "1", "--quiet"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--game", "nosuch"], "argument --game: invalid choice: 'nosuch'"),
        (["--players", "0"], "argument --players: must be 1 to 8, not 0"),
        (["--players", "9"], "argument --players: must be 1 to 8, not 9"),
        (["--races", "0"], "argument --races: must be at least 1, not 0"),
        (["--duration", "0"], "argument --duration: must be more than 0, not 0"),
    ],
)
def test_a_bad_flag_is_a_usage_error(flags: list[str], message: str) -> None:
    done = subprocess.run(
        # A short run, should it start (the flag under test comes last: it wins)
        [sys.executable, "-m", "client.cli", "bench", *SHORT, *flags],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,  # without the check the run started its servers before it failed
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"solrace bench: error: {message}"), done.stderr
