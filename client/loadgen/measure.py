"""Measured windows: what the processes under test and the generator did while one load ran.

A phase runs its load in one or more windows (`measure_pair` alternates the
echo's, the server's and the scripted call's windows so that all meet the same
load from the rest of a shared machine); `window` records the raw deltas of one
(CPU, syscalls, run-queue wait, latency samples, Redis commandstats),
`summary` turns a phase's windows into the figures of the report.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

from . import procs as P
from .pacing import Generator

#: Where progress lines go (the command prints them to stderr).
Log = Callable[[str], None]
#: One side of a measured pair: (generator, process, start sending, CPU figures to report).
Side = tuple[Generator, P.Proc | P.Watched, Callable[[], None], tuple[str, ...]]


def self_cpu() -> float:
    t = os.times()
    return t.user + t.system


def lat_summary(samples: Sequence[float]) -> dict[str, Any]:
    if not samples:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "p999_ms": None, "max_ms": None}
    s = sorted(samples)
    n = len(s)

    def q(x: float) -> float:
        return round(s[min(n - 1, int(x * n))] * 1000, 3)

    return {
        "count": n,
        "p50_ms": q(0.5),
        "p99_ms": q(0.99),
        "p999_ms": q(0.999),
        "max_ms": round(s[-1] * 1000, 3),
    }


def start_profiler(pid: int, out: str, duration: float) -> subprocess.Popen[bytes]:
    """py-spy record attached to `pid` for `duration` s; format from the file name.

    .svg flame graph, .json speedscope, anything else py-spy's raw collapsed
    stacks (one line per stack and its sample count: grep- and sort-friendly).
    """
    import sys
    from pathlib import Path

    spy = Path(sys.executable).with_name("py-spy")
    fmt = "flamegraph" if out.endswith(".svg") else "speedscope" if out.endswith(".json") else "raw"
    return subprocess.Popen(
        [
            str(spy),
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(max(1, int(duration))),
            "--rate",
            "250",
            "--format",
            fmt,
            "--output",
            out,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def commandstats(url: str) -> dict[str, tuple[int, int]]:
    """Redis `INFO commandstats`: command -> (calls, usec) so far."""
    import redis

    r = redis.Redis.from_url(url)
    try:
        info = r.info("commandstats")
    finally:
        r.close()
    return {k.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"])) for k, v in info.items()}


async def window(
    gen: Generator,
    proc: P.Proc | P.Watched,
    start: Callable[[], None],
    duration: float,
    warmup: float,
    profile: str = "",
    redis_url: str | None = None,
) -> dict[str, Any]:
    """One measured window: start sending, warm up, measure `duration` s, stop and drain; raw deltas.

    With `redis_url`, also the change of Redis' `INFO commandstats` over the window.
    """
    start()
    await asyncio.sleep(warmup)
    spy = start_profiler(proc.pid, profile, duration) if profile else None
    cs0 = await asyncio.to_thread(commandstats, redis_url) if redis_url else None
    c0 = proc.cpu()
    s0 = proc.syscalls()
    w0 = proc.runq_wait()
    g0 = self_cpu()
    i0 = P.machine_idle_s()
    rec = gen.rec
    rec.start()
    await asyncio.sleep(duration)
    rec.stop()
    c1 = proc.cpu()
    s1 = proc.syscalls()
    w1 = proc.runq_wait()
    g1 = self_cpu()
    i1 = P.machine_idle_s()
    cs1 = await asyncio.to_thread(commandstats, redis_url) if redis_url else None
    raw = {
        "wall": rec.t1 - rec.t0,
        "ops": rec.done,
        "sent": rec.sent,
        "late": rec.late_sends,
        "draws": rec.draws,
        "full_legal": rec.full_legal,
        "errors": dict(rec.errors),
        "ack": list(rec.ack),
        "rival": list(rec.rival),
        "cpu": {n: c1[n] - c0[n] for n in c0},
        "sys": {n: s1[n] - s0[n] for n in s0},
        "wait": {n: w1[n] - w0[n] for n in w0},
        "gen": g1 - g0,
        "idle": i1 - i0,
    }
    if cs0 is not None and cs1 is not None:
        raw["commandstats"] = {
            k: (c - cs0.get(k, (0, 0))[0], u - cs0.get(k, (0, 0))[1])
            for k, (c, u) in cs1.items()
            if c != cs0.get(k, (0, 0))[0]
        }
    await gen.quiesce()
    if spy is not None:
        _out, err = await asyncio.to_thread(spy.communicate)
        if spy.returncode:
            print(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
    return raw


def summary(raws: list[dict[str, Any]], cpu_names: tuple[str, ...]) -> dict[str, Any]:
    """The figures of a phase from its windows (sums; latency samples pooled)."""
    wall = sum(r["wall"] for r in raws)
    ops = sum(r["ops"] for r in raws)
    errors: dict[str, int] = {}
    for r in raws:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v

    def total(key: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for r in raws:
            for n, v in r[key].items():
                out[n] = out.get(n, 0) + v
        return out

    cpu, sysc, wait = total("cpu"), total("sys"), total("wait")
    out: dict[str, Any] = {
        "seconds": round(wall, 3),
        "windows": len(raws),
        "ops": ops,
        "ops_per_s": round(ops / wall, 1) if wall else 0.0,
        "sent": sum(r["sent"] for r in raws),
        "late_sends": sum(r["late"] for r in raws),
        "errors": errors,
        "ack": lat_summary([x for r in raws for x in r["ack"]]),
        "rival": lat_summary([x for r in raws for x in r["rival"]]),
        "cpu_s": {n: round(v, 3) for n, v in cpu.items()},
        "cpu_us_per_op": {n: (round(v / ops * 1e6, 1) if ops else None) for n, v in cpu.items()},
        "cpu_core_share": {n: round(v / wall, 3) for n, v in cpu.items()},
        "runq_wait_share": {n: round(v / wall, 3) for n, v in wait.items()},
        "syscalls_per_op": {n: (round(v / ops, 2) if ops else None) for n, v in sysc.items()},
        "generator_core_share": round(sum(r["gen"] for r in raws) / wall, 3),
        # the load generator's own CPU (this process, all its connections) per completed op
        "generator_cpu_us_per_op": round(sum(r["gen"] for r in raws) / ops * 1e6, 1) if ops else None,
        # the move mix (moves only): share of draws among the moves sent, and of
        # moves that needed a full legal_moves() (the rest: a cached candidate, checked)
        "draw_share": round(sum(r["draws"] for r in raws) / max(1, sum(r["sent"] for r in raws)), 3),
        "full_legal_share": round(
            sum(r["full_legal"] for r in raws) / max(1, sum(r["sent"] for r in raws)), 3
        ),
        "machine_busy_cores": round((os.cpu_count() or 1) - sum(r["idle"] for r in raws) / wall, 2),
    }
    tot = sum(cpu[n] for n in cpu_names if n in cpu)
    out["cpu_us_per_op_total"] = round(tot / ops * 1e6, 1) if ops else None
    if any("commandstats" in r for r in raws):
        # Redis' own accounting per operation: calls and µs of each command (the time
        # inside the command, scripts' inner calls counted under their own names too)
        stats: dict[str, list[int]] = {}
        for r in raws:
            for k, (c, u) in r.get("commandstats", {}).items():
                e = stats.setdefault(k, [0, 0])
                e[0] += c
                e[1] += u
        out["commandstats_per_op"] = {
            k: {"calls": round(c / ops, 3), "usec": round(u / ops, 2)}
            for k, (c, u) in sorted(stats.items(), key=lambda kv: -kv[1][1])
            if ops
        }
    return out


async def measure_pair(
    echo: Side,
    server: Side,
    duration: float,
    warmup: float,
    slices: int,
    profile: str = "",
    script: Side | None = None,
    redis_url: str | None = None,
) -> tuple[dict[str, Any], ...]:
    """The same phase for the echo and the server (and the scripted-call baseline on the
    server's Redis when `script` is given), in `slices` alternating windows of
    duration/slices each (echo, server, [script,] echo, ...), so that all meet the same load
    from the rest of this shared machine; each window after the first warms up for at most
    0.5 s. With `redis_url`, the server's and the baseline's windows also record Redis'
    `INFO commandstats`.

    Each side is (generator, process, start, cpu_names). Returns (echo, server[, script]).
    """
    slices = max(1, slices)
    part = duration / slices
    sides = [echo, server] + ([script] if script is not None else [])
    raws: list[list[dict[str, Any]]] = [[] for _ in sides]
    for k in range(slices):
        w = warmup if k == 0 else min(warmup, 0.5)
        for side, (gen, proc, start, _names) in enumerate(sides):
            prof = profile if (side == 1 and k == 0) else ""
            addr = redis_url if side >= 1 else None
            raws[side].append(await window(gen, proc, start, part, w, prof, addr))
    return tuple(summary(r, s[3]) for r, s in zip(raws, sides))
