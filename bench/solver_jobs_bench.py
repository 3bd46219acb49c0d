"""The server's two solver jobs, CPU per job, for the solver of one checkout or two in turn.

- ``certify``: the certify worker's job (server/certify/work.py ``certify``) on fixed seeds
  ``sha256("cmp-GAME-i")[:32]`` at the server's default ``certify_nodes``: CPU seconds for the
  batch, and how many it certified;
- ``hint``: the player-side search (``work.hint``) at the default ``hint_nodes``, from the views
  after 0–39 seeded random legal moves of each of those deals: CPU ms per hint.

Each run prints a digest of its results: two checkouts must print the same digest (the same
deals certified with the same lines, the same hints). ``--compare A B`` runs both roots
alternately, one process per run (on a shared machine only the ratio of alternating runs
means anything), and prints a table of the best of ``--rounds`` runs per side.

    git worktree add --detach /tmp/wt-before COMMIT
    .venv/bin/python bench/solver_jobs_bench.py --compare /tmp/wt-before . --rounds 2
"""

from __future__ import annotations

import argparse
import hashlib
import random
import subprocess
import sys
import time
from pathlib import Path

GAMES = ("racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up")


def deals_for(job: str, game: str, given: int) -> int:
    """`--deals`, else the default: 24 to certify (40 in Fours Up, which certifies few), 60 hints."""
    return given or (60 if job == "hint" else 40 if game == "fours-up" else 24)


def run(job: str, game: str, n: int) -> tuple[float, int, str]:
    """(CPU seconds, certified count or hints given, results digest) of one job over n deals."""
    from protocol import rules
    from server.certify import work
    from server.config import Settings

    budgets = Settings()  # the server's defaults, as its certify worker runs them

    seeds = [hashlib.sha256(f"cmp-{game}-{i}".encode()).hexdigest()[:32] for i in range(n)]
    if job == "certify":
        cpu0 = time.process_time()
        found = work.certify(game, seeds, budgets.certify_nodes)
        cpu = time.process_time() - cpu0
        return cpu, len(found), hashlib.sha256(repr(found).encode()).hexdigest()[:12]
    views = []
    for i, seed in enumerate(seeds):
        g = rules.deal(game, seed)
        rng = random.Random(i)
        for _ in range(rng.randrange(0, 40)):
            legal = g.legal_moves()
            if not legal or g.won:
                break
            g.play(rng.choice(sorted(legal)))
        views.append(g.view_text())
    cpu0 = time.process_time()
    moves = [work.hint(v, budgets.hint_nodes) for v in views]
    cpu = time.process_time() - cpu0
    return cpu, sum(m is not None for m in moves), hashlib.sha256(repr(moves).encode()).hexdigest()[:12]


def shown(job: str, cpu: float, n: int) -> str:
    """A job's CPU as the table shows it: the batch's seconds, or ms per hint."""
    return f"{cpu:.2f} s" if job == "certify" else f"{1000 * cpu / n:.1f} ms/hint"


def one(root: str, job: str, game: str, n: int) -> tuple[float, int, str]:
    """`run` in a process of its own that imports the solver of `root`."""
    out = subprocess.run(
        [sys.executable, __file__, "--root", root, "--job", job, "--games", game, "--deals", str(n)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[-3]), int(out[-2]), out[-1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    p.add_argument("--job", choices=("certify", "hint"), default="certify")
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--deals", type=int, default=0, help="default: 24 to certify (40 in Fours Up), 60 hints")
    p.add_argument("--compare", nargs=2, metavar="ROOT")
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    games = a.games.split(",")
    if a.compare:
        print("| job | game | deals | before: CPU | after: CPU | ratio | results |")
        print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
        for job in ("certify", "hint"):
            for game in games:
                n = deals_for(job, game, a.deals)
                best: dict[str, float] = {}
                digests: dict[str, set[str]] = {}
                counts: set[int] = set()
                for _ in range(a.rounds):
                    for root in a.compare:
                        cpu, count, digest = one(root, job, game, n)
                        best[root] = min(best.get(root, cpu), cpu)
                        digests.setdefault(root, set()).add(digest)
                        counts.add(count)
                same = len(set().union(*digests.values())) == 1
                before, after = (best[r] for r in a.compare)
                what = f"{counts.pop()} certified" if job == "certify" and len(counts) == 1 else "hints"
                print(
                    f"| {job} | {game} | {n} | {shown(job, before, n)} | {shown(job, after, n)} | {before / after:.2f} "
                    f"| {'same' if same else 'DIFFERENT'}: {what} |",
                    flush=True,
                )
        return
    sys.path.insert(0, a.root)
    import protocol

    assert Path(protocol.__file__).resolve().is_relative_to(Path(a.root).resolve()), protocol.__file__
    for game in games:
        n = deals_for(a.job, game, a.deals)
        cpu, count, digest = run(a.job, game, n)
        print(f"{a.job} {game} {n} {cpu:.4f} {count} {digest}", flush=True)


if __name__ == "__main__":
    main()
