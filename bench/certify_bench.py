"""Pool refill rate of one solver worker: certified deals per minute, per game.

Runs the worker's own job (server/certify/work.py ``certify``) on fresh random
seeds, one batch after another, in this one process for ``--seconds`` per game,
and prints seeds tried, deals certified, and certified deals per CPU minute
and per wall minute. Compare with the demand: one certified deal per
quick-match race (and one per game per day for the dailies).

    nice -n 10 .venv/bin/python bench/certify_bench.py --seconds 60
"""

from __future__ import annotations

import argparse
import time

from protocol import rules
from server.certify import work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="wall seconds per game")
    parser.add_argument("--nodes", type=int, default=2500, help="solver budget per seed (certify_nodes)")
    parser.add_argument("--batch", type=int, default=8, help="seeds per job (certify_batch)")
    parser.add_argument("--games", default="racing-aces,double-aces-and-kings,rouge-et-noir,fours-up")
    args = parser.parse_args()
    print("| game | seeds tried | certified | CPU s | certified per CPU minute | per wall minute |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for game in args.games.split(","):
        tried = certified = 0
        wall0, cpu0 = time.monotonic(), time.process_time()
        while time.monotonic() - wall0 < args.seconds:
            seeds = [rules.random_seed() for _ in range(args.batch)]
            certified += len(work.certify(game, seeds, args.nodes))
            tried += len(seeds)
        wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
        print(
            f"| {game} | {tried} | {certified} | {cpu:.0f} | {60 * certified / cpu:.1f} | {60 * certified / wall:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
