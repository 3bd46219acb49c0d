"""Does the solver give the same answers as another checkout of it, and at what CPU cost?

For each game, deal i has seed ``sha256("solver-same/i")[:32]``; besides the
deal itself, the positions after 30 and 80 random legal moves (a seeded RNG,
``random.Random(f"{game}/{seed}/{k}")``, stopping early at a won position or
one without moves) are solved too, because post-race analyses solve
mid-game positions. Each position is solved with a fixed node budget and no
time budget, once per method: the game's default (the rollout first in Fours
Up) and each method forced. Every (status, line, nodes) goes to a JSON file;
two such files from two checkouts must be identical (``--diff``).
``--first`` starts at another deal number (to split a run into parts);
``--endgames N`` solves N endgames per game instead (won positions with
cards taken back out, where searches end in wins and proofs of loss: deals
and early positions mostly run out of budget, Fours Up's always).

``--root`` is the checkout whose ``protocol`` package is imported (default:
this one), so one copy of this script measures the code before and after a
change; ``--compare`` runs two roots alternately, one process each, and
reports the ratio of their CPU seconds per expanded position per game (on a
shared machine only the ratio of alternating runs means anything).

    .venv/bin/python bench/solver_same.py --root /tmp/wt-before --out before.json
    .venv/bin/python bench/solver_same.py --out after.json
    .venv/bin/python bench/solver_same.py --diff before.json after.json
    .venv/bin/python bench/solver_same.py --root /tmp/wt-before --endgames 40 --out before-end.json
    .venv/bin/python bench/solver_same.py --compare /tmp/wt-before . --seeds 4 --rounds 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

GAMES = ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up")
STARTS = (0, 30, 80)
METHODS = (None, "best-first", "depth-first")


def seed_of(i: int) -> str:
    return hashlib.sha256(f"solver-same/{i}".encode()).hexdigest()[:32]


def run(
    root: str, games: list[str], seeds: int, nodes: int, endgames: int = 0, first: int = 0
) -> dict[str, Any]:
    sys.path.insert(0, str(Path(root).resolve()))
    from protocol import rules
    from protocol.solver import METHOD, solve

    if endgames:
        return run_endgames(root, games, endgames, nodes)

    results: list[dict[str, Any]] = []
    cpu: dict[str, dict[str, float]] = {}
    for game in games:
        spent = 0.0
        expanded = 0
        for i in range(first, first + seeds):
            seed = seed_of(i)
            for k in STARTS:
                g = rules.deal(game, seed)
                rng = random.Random(f"{game}/{seed}/{k}")
                played = []
                for _ in range(k):
                    moves = g.legal_moves()
                    if g.won or not moves:
                        break
                    move = rng.choice(moves)
                    g.play(move)
                    played.append(move)
                # The forced method equal to the default would repeat the
                # default's search (Fours Up's default adds the rollout).
                methods = [m for m in METHODS if m != METHOD[game] or game == "fours-up"]
                for method in methods:
                    t0 = time.process_time()
                    r = solve(g, nodes=nodes, method=method)  # type: ignore[arg-type]
                    spent += time.process_time() - t0
                    expanded += r.nodes
                    results.append(
                        {
                            "game": game,
                            "i": i,
                            "start": k,
                            "played": len(played),
                            "method": method or "default",
                            "status": r.status,
                            "nodes": r.nodes,
                            "line": list(r.line),
                        }
                    )
        cpu[game] = {
            "cpu_s": round(spent, 3),
            "nodes": expanded,
            "us_per_node": round(1e6 * spent / expanded, 2),
        }
        print(json.dumps({"root": root, "game": game, **cpu[game]}), file=sys.stderr, flush=True)
    return {"root": root, "nodes_budget": nodes, "seeds": seeds, "cpu": cpu, "results": results}


def run_endgames(root: str, games: list[str], count: int, nodes: int) -> dict[str, Any]:
    """Endgames (tests/solver/solver_helpers.py: a won position with 10 to 40
    cards taken back out), where searches end in wins and proofs of loss
    (deals and early positions mostly run out of budget, Fours Up's always)."""
    sys.path.insert(0, str(Path(root).resolve() / "tests" / "solver"))
    from solver_helpers import endgame  # type: ignore[import-not-found]

    from protocol.solver import solve

    results: list[dict[str, Any]] = []
    cpu: dict[str, dict[str, float]] = {}
    for game in games:
        rng = random.Random(f"solver-same/endgames/{game}")
        spent = 0.0
        expanded = 0
        for i in range(count):
            g = endgame(game, rng, rng.randint(10, 40))
            if g is None:
                continue
            for method in METHODS:
                t0 = time.process_time()
                r = solve(g, nodes=nodes, method=method)  # type: ignore[arg-type]
                spent += time.process_time() - t0
                expanded += r.nodes
                results.append(
                    {
                        "game": game,
                        "i": i,
                        "start": g.to_text(),
                        "method": method or "default",
                        "status": r.status,
                        "nodes": r.nodes,
                        "line": list(r.line),
                    }
                )
        cpu[game] = {"cpu_s": round(spent, 3), "nodes": expanded}
        print(json.dumps({"root": root, "game": game, **cpu[game]}), file=sys.stderr, flush=True)
    return {"root": root, "nodes_budget": nodes, "endgames": count, "cpu": cpu, "results": results}


def diff(a_path: str, b_path: str) -> int:
    a = json.loads(Path(a_path).read_text())["results"]
    b = json.loads(Path(b_path).read_text())["results"]
    if len(a) != len(b):
        print(f"different numbers of solves: {len(a)} and {len(b)}")
        return 1
    bad = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    for x, y in bad[:10]:
        print("differs:", json.dumps(x)[:300], "|", json.dumps(y)[:300])
    statuses: dict[str, int] = {}
    for x in a:
        statuses[x["status"]] = statuses.get(x["status"], 0) + 1
    print(f"{len(a)} solves compared ({statuses}), {len(bad)} differences")
    return 1 if bad else 0


def compare(old: str, new: str, games: list[str], seeds: int, nodes: int, rounds: int) -> int:
    """Alternate one process per root, ``rounds`` times each; print the ratios."""
    per: dict[str, dict[str, list[float]]] = {old: {}, new: {}}
    for r in range(rounds):
        for root in (old, new) if r % 2 == 0 else (new, old):
            cmd = [sys.executable, __file__, "--root", root, "--games", ",".join(games)]
            cmd += ["--seeds", str(seeds), "--nodes", str(nodes), "--out", "-"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            for game, c in json.loads(out)["cpu"].items():
                per[root].setdefault(game, []).append(c["us_per_node"])
    print("| game | before µs/position | after µs/position | before/after (per round) |")
    print("| --- | ---: | ---: | --- |")
    for game in games:
        a, b = per[old][game], per[new][game]
        ratios = ", ".join(f"{x / y:.2f}" for x, y in zip(a, b, strict=True))
        print(f"| {game} | {min(a):.1f} | {min(b):.1f} | {ratios} (best-of: {min(a) / min(b):.2f}) |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--endgames", type=int, default=0, help="solve this many endgames per game instead")
    parser.add_argument("--out", help="write the results here as JSON ('-': standard output)")
    parser.add_argument("--diff", nargs=2, metavar="JSON")
    parser.add_argument("--compare", nargs=2, metavar=("OLD_ROOT", "NEW_ROOT"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    games = args.games.split(",")
    if args.diff:
        return diff(args.diff[0], args.diff[1])
    if args.compare:
        return compare(args.compare[0], args.compare[1], games, args.seeds, args.nodes, args.rounds)
    data = run(args.root, games, args.seeds, args.nodes, args.endgames, args.first)
    text = json.dumps(data)
    if args.out == "-":
        print(text)
    elif args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
