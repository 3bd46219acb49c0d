"""Post-race analysis benchmark: what "Where was the win lost?" tells a player, and what it costs.

For each game, the first ``--deals`` seeds ``sha256("analysis-bench/i")[:32]`` that the
solver proves winnable at the certify budget (what quick-match and the dailies deal), each
played to its end by a bot strategy (``--strategy``, default greedy: it stops when it sees
nothing to do, as a stuck player does). Each game is then analysed the way the server does
(``protocol.solver.analysis.plan`` at ``ANALYSIS_NODES`` per run), twice: as now, and with
``LATEST_WINNABLE_RUNS`` set to 0 (the analysis before those runs), so that one run shows
what they add and cost. Times are CPU seconds of this process (one core).

    nice -n 10 .venv/bin/python bench/analysis_bench.py --deals 12
    .venv/bin/python bench/analysis_bench.py --deals 2 --games racing-aces   # a quick look
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.bots.strategies import make  # noqa: E402
from protocol import rules  # noqa: E402
from protocol.solver import ANALYSIS_NODES, Analysis, analyze, solve  # noqa: E402
from protocol.solver import analysis as analysis_module  # noqa: E402

GAMES = ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up")
#: The certify budget of the server's pools (`--certify-nodes`).
CERTIFY_NODES = 2_500
#: Seeds tried per game before giving up on finding --deals certified ones (Fours Up: ~1 in 55).
MAX_SEEDS = 2_000


def seed_of(i: int) -> str:
    return hashlib.sha256(f"analysis-bench/{i}".encode()).hexdigest()[:32]


def certified(game: str, deals: int) -> list[str]:
    seeds: list[str] = []
    for i in range(MAX_SEEDS):
        if len(seeds) == deals:
            break
        seed = seed_of(i)
        if solve(rules.deal(game, seed), nodes=CERTIFY_NODES).won:
            seeds.append(seed)
    return seeds


def played(game: str, seed: str, strategy: str) -> list[str]:
    g = rules.deal(game, seed)
    bot = make(strategy)
    bot.new_game()
    moves: list[str] = []
    while not g.won and len(moves) < 2_000:
        move = bot.choose(g.view())
        if move is None:
            break
        g.play(move)
        moves.append(move)
    return moves


def timed(game: str, seed: str, moves: list[str], extra_runs: int) -> tuple[Analysis, float]:
    analysis_module.LATEST_WINNABLE_RUNS = extra_runs
    start = time.process_time()
    a = analyze(game, seed, moves, nodes=ANALYSIS_NODES)
    return a, time.process_time() - start


def told(a: Analysis) -> str:
    """What the answer tells the player, in one word."""
    if a.verdict != "unknown":
        return a.verdict
    if a.first_lost is not None:
        return "unknown, a loss proved"
    return "unknown, a later win" if a.last_winnable else "unknown, the deal only"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--strategy", default="greedy")
    args = ap.parse_args()
    runs = analysis_module.LATEST_WINNABLE_RUNS
    print(f"{args.strategy} bot, {ANALYSIS_NODES} positions per run, LATEST_WINNABLE_RUNS {runs} vs 0")
    print(
        f"{'game':<22} {'deals':>5} {'moves':>5}  {'runs now':>8} {'before':>6}  "
        f"{'CPU s now':>9} {'before':>6}  {'p90 now':>7}  what it tells (now; before)"
    )
    for game in args.games.split(","):
        rows = []
        for seed in certified(game, args.deals):
            moves = played(game, seed, args.strategy)
            before, t_before = timed(game, seed, moves, 0)
            now, t_now = timed(game, seed, moves, runs)
            assert now.verdict == before.verdict or before.verdict == "unknown", (seed, now, before)
            rows.append((len(moves), now, t_now, before, t_before))
        if not rows:
            print(f"{game:<22} no certified deal in {MAX_SEEDS} seeds")
            continue
        times = sorted(r[2] for r in rows)
        print(
            f"{game:<22} {len(rows):>5} {statistics.median(r[0] for r in rows):>5.0f}  "
            f"{statistics.median(r[1].solves for r in rows):>8.0f} {statistics.median(r[3].solves for r in rows):>6.0f}  "
            f"{statistics.median(times):>9.2f} {statistics.median(r[4] for r in rows):>6.2f}  "
            f"{times[min(len(times) - 1, int(0.9 * len(times)))]:>7.2f}  "
            f"{dict(Counter(told(r[1]) for r in rows))}; {dict(Counter(told(r[3]) for r in rows))}",
            flush=True,
        )
    analysis_module.LATEST_WINNABLE_RUNS = runs


if __name__ == "__main__":
    main()
