"""Smoke test of bench/arena_standings_bench.py: a tiny arena against a real server.

The figures must be sane (every watcher got every measured update, latencies
positive and finite, CPU read), not fast: this machine is shared.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from bench_report import run_bench

pytestmark = pytest.mark.timeout(120)


def test_arena_standings_bench_tiny(tmp_path: Path) -> None:
    tiny = ("--players", "20", "--watchers", "5", "--updates", "3", "--update-ms", "200")
    proc, r = run_bench(tmp_path, "bench/arena_standings_bench.py", *tiny, timeout=110)
    assert r["races_formed"] == 10  # every joined player paired
    assert r["missed"] == 0
    lat = r["latency_ms"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["max"] and math.isfinite(lat["max"])
    # one update per measured change and per pairing shown, to each of the 5 watchers at least
    assert r["frames"] >= 2 * 3 * 5
    assert set(r["cpu_us_per_frame"]) == {"server", "redis-server"}
    assert "latency change -> watcher" in proc.stdout
