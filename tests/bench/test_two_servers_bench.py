"""Smoke test of bench/two_servers_bench.py: two tiny set-ups against two real server processes.

The figures must be sane (moves made in both set-ups, both server processes
busy in the two-process one, no errors), not fast: this machine is shared.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_report import run_bench

pytestmark = pytest.mark.timeout(120)


def test_two_servers_bench_tiny(tmp_path: Path) -> None:
    tiny = ("--races", "4", "--duration", "1", "--slices", "1", "--warmup", "0.2")
    proc, res = run_bench(tmp_path, "bench/two_servers_bench.py", *tiny, timeout=110)
    one, two = res["one_process"], res["two_processes"]
    assert one["moves_per_s"] > 0 and two["moves_per_s"] > 0
    assert not one["errors"] and not two["errors"]
    assert {"server A", "server B", "redis-server"} <= set(two["cpu_us_per_move"])
    assert "two processes" in proc.stdout
