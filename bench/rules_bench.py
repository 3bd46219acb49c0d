"""Rules engine micro-benchmark: median cost of play() and legal_moves().

Runs random playouts of every game (random seed per deal, uniformly random
legal move each step, capped length) and times each call separately with
perf_counter_ns, so the figures are per-call medians over realistic positions,
not an average dominated by a few slow ones.

    .venv/bin/python bench/rules_bench.py            # full run
    .venv/bin/python bench/rules_bench.py --quick    # a few seconds

Targets (issue): play() <= 15 µs and legal_moves() <= 60 µs median, per game.
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


def measure(game_id: str, deals: int, max_moves: int, rng: random.Random) -> dict[str, list[int]]:
    play_ns: list[int] = []
    legal_ns: list[int] = []
    text_ns: list[int] = []
    for _ in range(deals):
        g = rules.deal(game_id, f"bench-{rng.getrandbits(64):016x}")
        for _ in range(max_moves):
            t0 = perf_counter_ns()
            moves = g.legal_moves()
            t1 = perf_counter_ns()
            legal_ns.append(t1 - t0)
            if not moves or g.won:
                break
            move = rng.choice(moves)
            t0 = perf_counter_ns()
            g.play(move)
            t1 = perf_counter_ns()
            play_ns.append(t1 - t0)
            if len(play_ns) % 16 == 0:
                t0 = perf_counter_ns()
                g.to_text()
                t1 = perf_counter_ns()
                text_ns.append(t1 - t0)
    return {"play": play_ns, "legal_moves": legal_ns, "to_text": text_ns}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    print(f"python {platform.python_version()} ({platform.python_implementation()}), "
          f"nproc {os.cpu_count()}, cpu {cpu}")
    print(f"{deals} deals per game, at most {args.moves} random moves each\n")
    header = f"{'game':24} {'calls':>8} {'play µs':>9} {'p90':>7} {'legal µs':>9} {'p90':>7} {'to_text µs':>10}  ok"
    print(header)
    print("-" * len(header))
    all_ok = True
    gc.disable()  # a collection inside one timed call would only add noise
    try:
        for game_id in rules.GAMES:
            r = measure(game_id, deals, args.moves, rng)
            gc.collect()
            play = statistics.median(r["play"]) / 1000
            legal = statistics.median(r["legal_moves"]) / 1000
            play90 = statistics.quantiles(r["play"], n=10)[-1] / 1000
            legal90 = statistics.quantiles(r["legal_moves"], n=10)[-1] / 1000
            text = statistics.median(r["to_text"]) / 1000
            ok = play <= PLAY_TARGET_US and legal <= LEGAL_TARGET_US
            all_ok &= ok
            print(f"{game_id:24} {len(r['play']):>8} {play:>9.2f} {play90:>7.2f} {legal:>9.2f} "
                  f"{legal90:>7.2f} {text:>10.2f}  {'yes' if ok else 'NO'}")
    finally:
        gc.enable()
    print(f"\ntargets: play <= {PLAY_TARGET_US:g} µs, legal_moves <= {LEGAL_TARGET_US:g} µs (medians)")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
