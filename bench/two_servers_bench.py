"""Two server processes on one Redis against one, in alternating windows of one run.

Starts `solrace serve` A (with its private redis-server) and B pointed at A's
redis-server, then measures moves in closed loop (each bot sends its next move
on the ack, like `solrace bench`'s capacity phase), alternating two set-ups
in windows of equal length:

- **one**: R races of P bots, all on A;
- **two**: the same number of bots, R/2 races on A and R/2 on B (a race's bots
  on one process: what a process pays per move; progress to a rival on the
  other process costs the pub/sub hop on top).

For each set-up: moves/s, and CPU µs per move (utime+stime from /proc) of
each server process, of the shared redis-server, and of this generator, plus
the time each process waited for a CPU. On a machine with fewer cores than
busy processes the throughput says more about the machine than about the
server; the CPU per move is the figure to compare.

    .venv/bin/python bench/two_servers_bench.py --races 100 --duration 20 --slices 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client.loadgen import procs as P  # noqa: E402
from client.loadgen.measure import self_cpu  # noqa: E402
from client.loadgen.movegen import MoveGen  # noqa: E402
from client.loadgen.scriptgen import redis_url  # noqa: E402


async def window(gens: list[MoveGen], watched: P.Readings, duration: float, warmup: float) -> dict[str, Any]:
    """One closed-loop window of these generators: moves, CPU deltas, waits."""
    for g in gens:
        g.set_closed()
    await asyncio.sleep(warmup)
    c0, w0, g0, i0 = watched.cpu(), watched.runq_wait(), self_cpu(), P.machine_idle_s()
    for g in gens:
        g.rec.start()
    await asyncio.sleep(duration)
    for g in gens:
        g.rec.stop()
    c1, w1, g1, i1 = watched.cpu(), watched.runq_wait(), self_cpu(), P.machine_idle_s()
    moves = sum(g.rec.done for g in gens)
    errors: dict[str, int] = {}
    for g in gens:
        for k, v in g.rec.errors.items():
            errors[k] = errors.get(k, 0) + v
    for g in gens:
        await g.quiesce()
    return {
        "wall": duration,
        "moves": moves,
        "cpu": {n: c1[n] - c0[n] for n in c0},
        "wait": {n: w1[n] - w0[n] for n in w0},
        "gen": g1 - g0,
        "idle": i1 - i0,
        "errors": errors,
    }


def summarise(ws: list[dict[str, Any]]) -> dict[str, Any]:
    wall = sum(w["wall"] for w in ws)
    moves = sum(w["moves"] for w in ws)
    names = ws[0]["cpu"].keys()
    cpu = {n: sum(w["cpu"][n] for w in ws) for n in names}
    out: dict[str, Any] = {
        "moves_per_s": moves / wall,
        "cpu_us_per_move": {n: 1e6 * c / max(moves, 1) for n, c in cpu.items() if c > 0},
        "generator_us_per_move": 1e6 * sum(w["gen"] for w in ws) / max(moves, 1),
        "waited_share": {n: sum(w["wait"][n] for w in ws) / wall for n in names if cpu[n] > 0},
        "machine_busy_cores": (os.cpu_count() or 1) - sum(w["idle"] for w in ws) / wall,
        "errors": {k: v for w in ws for k, v in w["errors"].items()},
    }
    servers = sum(c for n, c in cpu.items() if n.startswith("server"))
    out["servers_us_per_move"] = 1e6 * servers / max(moves, 1)
    return out


async def main(a: argparse.Namespace) -> dict[str, Any]:
    P.raise_nofile(4 * a.races * a.players + 1024)
    srv_a = P.start_server("", P.SERVER_FLAGS)
    srv_b = None
    gens: list[MoveGen] = []
    try:
        rpid = srv_a.extra["redis-server"]
        srv_b = P.start_server(redis_url(rpid), P.SERVER_FLAGS)
        watched = P.Watched({"server A": srv_a.pid, "server B": srv_b.pid, "redis-server": rpid})
        half = a.races // 2
        setups: dict[str, list[MoveGen]] = {}
        if "one" in a.setups:
            setups["one"] = [MoveGen(srv_a.host, srv_a.port, a.races, a.players, a.game, seed=a.seed)]
        if "two" in a.setups:
            setups["two"] = [
                MoveGen(srv_a.host, srv_a.port, half, a.players, a.game, seed=a.seed + 1),
                MoveGen(srv_b.host, srv_b.port, a.races - half, a.players, a.game, seed=a.seed + 2),
            ]
        gens = [g for group in setups.values() for g in group]
        for g in gens:
            await g.setup()
        print(f"{len(gens)} generators set up", file=sys.stderr)
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in setups}
        per = a.duration / a.slices
        for i in range(a.slices):
            for name, group in setups.items():
                w = await window(group, watched, per, a.warmup)
                runs[name].append(w)
                print(
                    f"slice {i + 1}/{a.slices} {name}: {w['moves'] / w['wall']:,.0f} moves/s", file=sys.stderr
                )
        return {
            "races": a.races,
            "players": a.players,
            "game": a.game,
            "duration_s": a.duration,
            "slices": a.slices,
            "one_process": summarise(runs["one"]) if "one" in runs else None,
            "two_processes": summarise(runs["two"]) if "two" in runs else None,
        }
    finally:
        for g in gens:
            g.close()
        await asyncio.sleep(0.3)  # else SIGTERM finds them open and drains them for seconds
        if srv_b is not None:
            srv_b.stop()
        srv_a.stop()


def fig(r: dict[str, Any] | None, key: str, name: str = "") -> float | None:
    """One figure of a set-up's summary (None when the set-up did not run)."""
    if r is None:
        return None
    v = r[key].get(name) if name else r[key]
    return None if v is None else float(v)


def render(res: dict[str, Any]) -> str:
    one, two = res["one_process"], res["two_processes"]
    rows: list[tuple[str, str, str]] = [
        ("moves/s", "moves_per_s", ""),
        ("server processes CPU µs/move (sum)", "servers_us_per_move", ""),
        ("  server A", "cpu_us_per_move", "server A"),
        ("  server B", "cpu_us_per_move", "server B"),
        ("redis-server CPU µs/move", "cpu_us_per_move", "redis-server"),
        ("generator CPU µs/move", "generator_us_per_move", ""),
        ("machine busy (cores)", "machine_busy_cores", ""),
    ]
    lines = [
        f"{res['races']} races x {res['players']} bots ({res['game']}), closed loop, "
        f"{res['duration_s']} s per set-up in {res['slices']} alternating windows",
        f"{'figure':<38} {'one process':>12} {'two processes':>14} {'ratio':>7}",
    ]
    for label, key, name in rows:
        x, y = fig(one, key, name), fig(two, key, name)
        fx = "—" if x is None else f"{x:,.1f}"
        fy = "—" if y is None else f"{y:,.1f}"
        ratio = f"{y / x:.2f}×" if x and y else ""
        lines.append(f"{label:<38} {fx:>12} {fy:>14} {ratio:>7}")
    for label, r in (("one", one), ("two", two)):
        if r is not None:
            waits = ", ".join(f"{n} {v:.2f}" for n, v in r["waited_share"].items())
            lines.append(
                f"waited for a CPU (share of the time), {label}: {waits}; errors: {r['errors'] or 'none'}"
            )
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--races", type=int, default=50, help="races of each set-up (default 50)")
    p.add_argument("--players", type=int, default=2, help="bots per race (default 2)")
    p.add_argument("--game", default="fours-up")
    p.add_argument("--duration", type=float, default=20.0, help="measured seconds per set-up (default 20)")
    p.add_argument("--slices", type=int, default=4, help="alternating windows per set-up (default 4)")
    p.add_argument("--warmup", type=float, default=0.5, help="seconds before each window (default 0.5)")
    p.add_argument(
        "--setups",
        default="one,two",
        help="which set-ups to run: one, two or both (default one,two; one alone halves the "
        "generator's sockets, for 10,000 players under a 20,000 open-file limit)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default="", help="also write the result as JSON to this file")
    return p.parse_args(argv)


if __name__ == "__main__":
    args = parse()
    import uvloop  # the generator runs on uvloop, as in `solrace bench`

    result = uvloop.run(main(args))
    print(render(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
