"""Smoke test of bench/arena_standings_bench.py: a tiny arena against a real server.

The figures must be sane (every watcher got every measured update, latencies
positive and finite, CPU read), not fast: this machine is shared.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


def test_arena_standings_bench_tiny(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            "bench/arena_standings_bench.py",
            *("--players", "20", "--watchers", "5", "--updates", "3", "--update-ms", "200"),
            *("--json", str(out)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(out.read_text())
    assert r["races_formed"] == 10  # every joined player paired
    assert r["missed"] == 0
    lat = r["latency_ms"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["max"] and math.isfinite(lat["max"])
    # one update per measured change and per pairing shown, to each of the 5 watchers at least
    assert r["frames"] >= 2 * 3 * 5
    assert set(r["cpu_us_per_frame"]) == {"server", "redis-server"}
    assert "latency change -> watcher" in proc.stdout
