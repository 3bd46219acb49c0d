"""Stopping the certifier ends its workers even while a solve is running.

A solve can take minutes; a server that is told to stop (or that failed to
start, its port taken) must not wait for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psutil
import pytest
from waiting import DEADLINE, wait_until

from server.certify import Certifier
from server.config import Settings

ROOT = Path(__file__).resolve().parents[2]


async def test_stop_does_not_wait_for_a_running_solve(r) -> None:
    settings = dataclasses.replace(Settings(), certify_workers=1, certified_games="")
    certifier = Certifier(r, settings)
    await certifier.start()
    # A "solve" that would outlast the test by far, already running in the worker.
    long_solve = asyncio.ensure_future(certifier.run(time.sleep, 600))
    await certifier.run(time.sleep, 0)  # the worker is up: the long solve holds it next
    started = time.monotonic()
    await asyncio.wait_for(certifier.stop(), timeout=DEADLINE)
    assert time.monotonic() - started < DEADLINE
    with pytest.raises(BrokenProcessPool):
        await asyncio.wait_for(long_solve, timeout=DEADLINE)
    assert certifier.executor is None


def test_a_killed_server_leaves_no_solver_worker(tmp_path) -> None:
    """kill -9 of a server process: its solver worker notices and ends by itself."""
    server = subprocess.Popen(
        [sys.executable, "-m", "client.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
        + ["--data", str(tmp_path / "data"), "--bot-workers", "0", "--certified-games", "all"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc = psutil.Process(server.pid)

        def worker() -> psutil.Process | None:
            for child in proc.children():
                if "spawn_main" in " ".join(child.cmdline()):
                    return child
            return None

        solver = wait_until(worker, what="the solver worker")
    finally:
        server.kill()
        server.wait()
    wait_until(lambda: not solver.is_running() or solver.status() == psutil.STATUS_ZOMBIE, what="worker gone")
