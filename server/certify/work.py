"""What the worker processes run: plain functions of plain data (picklable).

Each takes what it needs as arguments and returns JSON-ready data, so that a
`ProcessPoolExecutor` can run it away from the server's event loop.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from protocol import rules
from protocol.solver import best_move, solve
from protocol.solver.search import Status

PARENT_CHECK_S = 1.0


def start_worker(parent: int, nice: int) -> None:
    """Worker initializer: lower this worker's priority by `nice`, and end it once the server
    process that made it is gone.

    The background work (pool refills, dailies) can wait; the moves of the server's event
    loop cannot, so on a busy machine they go first. The workers of what a player waits for
    (a hint, an analysis) keep the server's priority (`nice` 0).

    A pool's workers only end when the server shuts the pool down; a server that is
    killed (kill -9, OOM) would leave them behind, searching for ever. A daemon thread
    notices the change of parent (the orphan is re-parented) within PARENT_CHECK_S.
    """
    if nice > 0:
        os.nice(nice)
    # A terminal's Ctrl-C reaches the whole process group, and so does a SIGTERM sent to it
    # (systemd's default KillMode=control-group, `timeout`, `kill -- -PGID`): the server ends
    # its workers itself (end_workers, with SIGKILL), while a worker killed by the signal would
    # fail the solve under way for nothing and leave a broken pool to the stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def certify(game: str, seeds: list[str], nodes: int) -> list[tuple[str, list[str]]]:
    """The seeds of `seeds` the solver proves winnable within `nodes`, each with
    its winning line, re-played by the engine before it is kept."""
    found = []
    for seed in seeds:
        result = solve(rules.deal(game, seed), nodes=nodes)
        if result.won and rules.replay(game, seed, list(result.line)).won:
            found.append((seed, list(result.line)))
    return found


def certify_first(game: str, seeds: list[str], nodes: int) -> tuple[int, list[str]] | None:
    """The index in `seeds` of the first one proved winnable, with its line."""
    for k, seed in enumerate(seeds):
        result = solve(rules.deal(game, seed), nodes=nodes)
        if result.won and rules.replay(game, seed, list(result.line)).won:
            return k, list(result.line)
    return None


def hint(view_text: str, nodes: int) -> str | None:
    """The player-side search's best move from a view (it sees what the player sees)."""
    return best_move(view_text, nodes=nodes)


def solve_after(game: str, seed: str, moves: list[str], nodes: int) -> tuple[Status, list[str], int, float]:
    """One solver run of an analysis (`protocol.solver.analysis.plan`): the position after
    `moves`, as (status, line, nodes, seconds)."""
    g = rules.deal(game, seed)
    for move in moves:
        g.play(move)
    result = solve(g, nodes=nodes)
    return result.status, list(result.line), result.nodes, result.seconds
