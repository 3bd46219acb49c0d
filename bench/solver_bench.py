"""Solver benchmark: how many deals of each game are proved winnable, proved
lost, or unknown at a fixed budget, and what that costs on one core.

Deal i of a game has seed ``sha256("solver-bench/i")[:32]`` (hex), the same
for every game and every run. Each deal is solved once with the game's node
budget (``--nodes GAME=N`` to change one); every winning line is re-played by
the rules engine and must win. Deals run one after the other in this process
(one core); times are CPU seconds of this process per deal.

Certification cost: a pool of certified deals draws seeds one after the other
and keeps the first one proved winnable. Walking the deals in order and
cutting after each win gives the cost of each certification (the deals tried
and their summed CPU time, up to and including the win); their median and
p90 are what one certified deal costs.

    nice -n 10 .venv/bin/python bench/solver_bench.py --deals 500 --out bench-solver.jsonl
    .venv/bin/python bench/solver_bench.py --deals 5          # a quick look
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol import rules  # noqa: E402
from protocol.solver import METHOD, solve  # noqa: E402

#: Node budget per deal, chosen so that 500 deals of the four games take about
#: 20 minutes of CPU on the reference machine (see docs/bots.md).
NODES = {
    "racing-aces": 2_000,
    "double-aces-and-kings": 2_000,
    "rouge-et-noir": 2_500,
    "fours-up": 2_500,
}


def deal_seed(i: int) -> str:
    return hashlib.sha256(f"solver-bench/{i}".encode()).hexdigest()[:32]


def quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_game(game: str, deals: int, nodes: int, out: object) -> dict[str, object]:
    rows = []
    for i in range(deals):
        seed = deal_seed(i)
        g = rules.deal(game, seed)
        t0 = time.process_time()
        result = solve(g, nodes=nodes)
        cpu = time.process_time() - t0
        if result.won and not rules.replay(game, seed, result.line).won:
            raise SystemExit(f"{game} deal {i}: the winning line does not win")
        row = {
            "game": game,
            "i": i,
            "seed": seed,
            "status": result.status,
            "nodes": result.nodes,
            "nodes_budget": nodes,
            "cpu_s": round(cpu, 4),
            "line": len(result.line),
        }
        rows.append(row)
        if out is not None:
            print(json.dumps(row), file=out, flush=True)  # type: ignore[call-overload]
    return summarize(game, nodes, rows)


def summarize(game: str, nodes: int, rows: list[dict[str, Any]]) -> dict[str, object]:
    n = len(rows)
    count = {s: sum(1 for r in rows if r["status"] == s) for s in ("won", "lost", "unknown")}
    cpu = [r["cpu_s"] for r in rows]
    # Certification: cut the sequence of deals after each win.
    certify_s: list[float] = []
    certify_deals: list[int] = []
    spent, tried = 0.0, 0
    for r in rows:
        spent += r["cpu_s"]
        tried += 1
        if r["status"] == "won":
            certify_s.append(spent)
            certify_deals.append(tried)
            spent, tried = 0.0, 0
    lines = [r["line"] for r in rows if r["status"] == "won"]
    return {
        "game": game,
        "method": METHOD[game],
        "nodes": nodes,
        "deals": n,
        **{s: count[s] for s in count},
        **{f"{s}_pct": round(100 * count[s] / n, 1) if n else 0.0 for s in count},
        "cpu_median_s": round(statistics.median(cpu), 3) if cpu else None,
        "cpu_p90_s": round(quantile(cpu, 0.9), 3),
        "cpu_total_s": round(sum(cpu), 1),
        "line_median": statistics.median(lines) if lines else None,
        "certify_median_s": round(statistics.median(certify_s), 3) if certify_s else None,
        "certify_p90_s": round(quantile(certify_s, 0.9), 3) if certify_s else None,
        "certify_deals_median": statistics.median(certify_deals) if certify_deals else None,
        "certify_deals_p90": quantile(certify_deals, 0.9) if certify_deals else None,
    }


def table(summaries: list[dict[str, Any]]) -> str:
    head = (
        "| game | method | nodes/deal | deals | won % | lost % | unknown % | s/deal median | p90 "
        "| line median | certify s median | p90 | deals tried median | p90 |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    rows = [
        f"| {s['game']} | {s['method']} | {s['nodes']} | {s['deals']} | {s['won_pct']} | {s['lost_pct']} "
        f"| {s['unknown_pct']} | {s['cpu_median_s']} | {s['cpu_p90_s']} | {s['line_median']} "
        f"| {s['certify_median_s']} | {s['certify_p90_s']} | {s['certify_deals_median']} "
        f"| {s['certify_deals_p90']} |"
        for s in summaries
    ]
    return "\n".join([head, *rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--games", default=",".join(NODES), help="comma-separated game ids")
    parser.add_argument("--nodes", action="append", default=[], metavar="GAME=N", help="budget for one game")
    parser.add_argument("--out", help="append one JSON line per deal to this file")
    parser.add_argument(
        "--summarize", nargs="+", metavar="JSONL", help="only print the table of earlier runs' --out files"
    )
    args = parser.parse_args()
    budgets = dict(NODES)
    for item in args.nodes:
        game, _, n = item.partition("=")
        budgets[game] = int(n)
    if args.summarize:
        by_game: dict[str, list[dict[str, Any]]] = {}
        for path in args.summarize:
            for text in Path(path).read_text().splitlines():
                row = json.loads(text)
                by_game.setdefault(row["game"], []).append(row)
        summaries = []
        for game, rows in by_game.items():
            rows = sorted({r["i"]: r for r in rows}.values(), key=lambda r: r["i"])[: args.deals]
            # Rows written before the budget was recorded per row: --nodes says it.
            summaries.append(summarize(game, rows[0].get("nodes_budget", budgets[game]), rows))
            print(json.dumps(summaries[-1]))
        print(table(summaries))
        return 0
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 - closed below
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, CPython {platform.python_version()}")
    summaries = []
    try:
        for game in args.games.split(","):
            summary = run_game(game, args.deals, budgets[game], out)
            summaries.append(summary)
            print(json.dumps(summary), flush=True)
    finally:
        if out is not None:
            out.close()
    print(table(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
