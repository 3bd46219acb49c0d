"""Rules engine micro-benchmark: median cost of play() and legal_moves().

Runs random playouts of every game (random seed per deal, uniformly random
legal move each step, capped length) and times each call separately with
perf_counter_ns, so the figures are per-call medians over realistic positions,
not an average dominated by a few slow ones.

    .venv/bin/python bench/rules_bench.py            # full run
    .venv/bin/python bench/rules_bench.py --quick    # a few seconds

Targets: play() <= 15 µs and legal_moves() <= 60 µs median, per game.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
from pathlib import Path
from time import perf_counter_ns

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol import rules  # noqa: E402

PLAY_TARGET_US = 15.0
LEGAL_TARGET_US = 60.0


def choose(moves: list[str], rng: random.Random) -> str:
    # Uniform choice mostly shuffles cards between foundations and never gets
    # far into a deal; leaning towards draws and moves home reaches the
    # mid- and end-game positions (empty piles, long runs) a race sees.
    if "draw" in moves and rng.random() < 0.2:
        return "draw"
    home = [m for m in moves if m[0] != "f" and ">f" in m]
    if home and rng.random() < 0.5:
        return rng.choice(home)
    return rng.choice(moves)


def measure(game_id: str, deals: int, max_moves: int, rng: random.Random) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {k: [] for k in ("play", "apply", "legal_moves", "to_text", "view_text")}
    play_ns, apply_ns, legal_ns = out["play"], out["apply"], out["legal_moves"]
    for _ in range(deals):
        g = rules.deal(game_id, f"bench-{rng.getrandbits(64):016x}")
        for n in range(max_moves):
            t0 = perf_counter_ns()
            moves = g.legal_moves()
            t1 = perf_counter_ns()
            legal_ns.append(t1 - t0)
            if not moves or g.won:
                break
            move = choose(moves, rng)
            if n % 2:
                t0 = perf_counter_ns()
                g.play(move)
                t1 = perf_counter_ns()
                play_ns.append(t1 - t0)
            else:
                t0 = perf_counter_ns()
                g.apply(move)
                t1 = perf_counter_ns()
                apply_ns.append(t1 - t0)
            if n % 8 == 0:
                for name in ("to_text", "view_text"):
                    method = getattr(g, name)
                    t0 = perf_counter_ns()
                    method()
                    t1 = perf_counter_ns()
                    out[name].append(t1 - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer deals (a few seconds)")
    parser.add_argument("--deals", type=int, help="deals per game (default 400, quick 40)")
    parser.add_argument("--moves", type=int, default=250, help="move cap per deal (default 250)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the move choices")
    args = parser.parse_args(argv)
    deals = args.deals or (40 if args.quick else 400)
    rng = random.Random(args.seed)

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"nproc {os.cpu_count()}, cpu {cpu}"
    )
    print(f"{deals} deals per game, at most {args.moves} random moves each\n")
    header = (
        f"{'game':22} {'calls':>7} {'play':>6} {'p90':>6} {'apply':>6} {'legal':>7} {'p90':>6} "
        f"{'to_text':>8} {'view':>6}  ok"
    )
    print("median (and 90th percentile) µs per call")
    print(header)
    print("-" * len(header))
    all_ok = True
    gc.disable()  # a collection inside one timed call would only add noise
    try:
        for game_id in rules.GAMES:
            r = measure(game_id, deals, args.moves, rng)
            gc.collect()
            med = {k: statistics.median(v) / 1000 for k, v in r.items()}
            p90 = {k: statistics.quantiles(v, n=10)[-1] / 1000 for k, v in r.items()}
            ok = med["play"] <= PLAY_TARGET_US and med["legal_moves"] <= LEGAL_TARGET_US
            all_ok &= ok
            calls = len(r["play"]) + len(r["apply"])
            print(
                f"{game_id:22} {calls:>7} {med['play']:>6.2f} {p90['play']:>6.2f} {med['apply']:>6.2f} "
                f"{med['legal_moves']:>7.2f} {p90['legal_moves']:>6.2f} {med['to_text']:>8.2f} "
                f"{med['view_text']:>6.2f}  {'yes' if ok else 'NO'}"
            )
    finally:
        gc.enable()
    print(f"\ntargets: play <= {PLAY_TARGET_US:g} µs, legal_moves <= {LEGAL_TARGET_US:g} µs (medians)")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
