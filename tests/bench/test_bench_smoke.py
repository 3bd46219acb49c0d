"""Smoke test of `solrace bench`: tiny runs against a real server and the echo baseline.

Each mode runs for about a second per phase; the figures must be sane (work
done on both sides, no protocol errors, latencies and CPU per operation
positive and finite), not fast: this machine is shared.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from bench_report import run_bench

pytestmark = pytest.mark.timeout(240)


def bench(tmp_path: Path, *args: str) -> dict:
    proc, report = run_bench(
        tmp_path, "-m", "client.cli", "bench", *args, "--quiet", timeout=200
    )  # CPU-bound: minutes when loaded
    assert "ratio" in proc.stdout
    return report


def sane_ms(x) -> bool:
    return x is not None and 0 < x < 10_000 and math.isfinite(x)


@pytest.fixture(scope="module")
def moves_report(tmp_path_factory) -> dict:
    """One small `bench moves` run, read by the tests below (each checks its own figures)."""
    return bench(
        tmp_path_factory.mktemp("moves"),
        *("moves", "--races", "3", "--duration", "0.8", "--warmup", "0.2", "--rate", "150"),
    )


def test_moves(moves_report):
    r = moves_report
    for phase in ("server_capacity", "echo_capacity", "server_latency", "echo_latency"):
        p = r[phase]
        assert p["ops"] > 20, (phase, p)
        assert sane_ms(p["ack"]["p50_ms"]) and p["ack"]["p50_ms"] <= p["ack"]["p99_ms"] <= p["ack"]["p999_ms"]
        assert not {k: v for k, v in p["errors"].items() if k != "restart:TimeoutError"}, p["errors"]
    assert sane_ms(r["server_capacity"]["rival"]["p50_ms"])  # each move's progress reached the rival
    assert r["server_capacity"]["cpu_us_per_op"]["server"] > 0
    assert "redis-server" in r["server_capacity"]["cpu_us_per_op"]
    assert r["echo_capacity"]["cpu_us_per_op"]["echo"] > 0
    assert r["message_bytes"] > 30
    # open loop: about the requested rate, on both sides
    assert 60 < r["server_latency"]["ops_per_s"] < 300
    assert 60 < r["echo_latency"]["ops_per_s"] < 300


def test_idle_and_fanout(tmp_path):
    r = bench(tmp_path, "idle", "--conns", "200", "--settle", "0.3")
    assert r["server"]["connections"] == r["echo"]["connections"] == 200
    assert r["server"]["bytes_per_conn"]["server"] > 0 and r["echo"]["bytes_per_conn"]["echo"] > 0
    f = bench(tmp_path, "fanout", "--spectators", "30", "--duration", "1", "--update-rate", "15")
    for side in ("server", "echo"):
        assert f[side]["updates"] >= 5, f[side]
        assert f[side]["incomplete"] <= 2
        assert sane_ms(f[side]["to_last"]["p50_ms"])


def test_moves_reports_generator_cost_and_mix(moves_report):
    r = moves_report
    for phase in ("server_capacity", "echo_capacity"):
        assert r[phase]["generator_cpu_us_per_op"] > 0
    sc = r["server_capacity"]
    # Both kinds are sent and counted. Not a bound on the mix: it depends on how far the games
    # get in the window (0.05 on a quiet machine, 0.79 once on one loaded three times over).
    assert 0 < sc["draw_share"] < 1
    assert 0 < sc["full_legal_share"] <= 1
