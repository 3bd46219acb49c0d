"""Smoke test of bench/solver_jobs_bench.py: one checkout compared with itself over one deal
gives a row per job and game, the same results on both sides; a run names its digest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "solver_jobs_bench.py"


def bench(*args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args], check=True, capture_output=True, text=True, timeout=200
    )
    return out.stdout.splitlines()


def test_a_checkout_compared_with_itself_gives_the_same_results() -> None:
    rows = bench("--compare", str(ROOT), str(ROOT), "--rounds", "1", "--games", "racing-aces", "--deals", "1")
    assert rows[0].startswith("| job | game |") and len(rows) == 4, rows
    certify, hint = rows[2].split(" | "), rows[3].split(" | ")
    assert certify[0] == "| certify" and certify[1] == "racing-aces" and certify[-1].startswith("same: ")
    assert hint[0] == "| hint" and hint[3].endswith("ms/hint") and hint[-1] == "same: hints |"


def test_a_run_prints_cpu_count_and_digest() -> None:
    (line,) = bench("--job", "hint", "--games", "fours-up", "--deals", "2")
    job, game, n, cpu, count, digest = line.split()
    assert (job, game, n) == ("hint", "fours-up", "2") and float(cpu) >= 0 and 0 <= int(count) <= 2
    assert len(digest) == 12
