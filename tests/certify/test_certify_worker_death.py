"""A solver worker that dies (kill -9, the OOM killer) is replaced, and says so in one line.

Before: the `ProcessPoolExecutor` was broken for good. The refill loop logged a WARNING with a
traceback every second for the rest of the process's life and certified nothing again (no
certified deals, no certified dailies), and every hint failed. A SIGTERM sent to the server's
whole process group (systemd's default `KillMode=control-group`, `timeout`, `kill -- -PGID`)
killed the worker under a running solve the same way, and a clean stop logged that traceback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import psutil
import pytest
from waiting import DEADLINE, until, wait_until

from server.certify import Certifier
from server.config import Settings

ROOT = Path(__file__).resolve().parents[2]


async def worker_pid(job: Any) -> int | None:
    """The pid of the worker that runs `os.getpid` for `job`, or None if its pool was broken."""
    try:
        return int(await job(os.getpid))
    except BrokenProcessPool:
        return None


@pytest.mark.parametrize("pool", ["certify", "request"])
async def test_a_killed_solver_worker_is_replaced(r, caplog: pytest.LogCaptureFixture, pool: str) -> None:
    settings = dataclasses.replace(
        Settings(), certify_workers=1, solver_request_workers=1, certified_games=""
    )
    certifier = Certifier(r, settings)
    await certifier.start()
    job = certifier.run if pool == "certify" else certifier.ask
    try:
        killed = await worker_pid(job)
        assert killed is not None
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="solrace.certify"):
            os.kill(killed, signal.SIGKILL)
            # A job sent meanwhile fails (its worker is gone); then new workers do the work.
            replaced = await until(lambda: worker_pid(job), timeout=DEADLINE, what="a new solver worker")
        assert replaced != killed
        lines = [rec for rec in caplog.records if rec.name == "solrace.certify"]
        assert [rec.getMessage() for rec in lines] == [
            f"a solver worker process ended unexpectedly (killed?): its job failed; starting new {pool} workers"
        ], [rec.getMessage() for rec in lines]
        assert lines[0].exc_info is None
    finally:
        await asyncio.wait_for(certifier.stop(), timeout=DEADLINE)


def test_a_sigterm_to_the_process_group_stops_cleanly(tmp_path: Path) -> None:
    """SIGTERM to the server's process group while its solver worker is busy: exit 0, the log
    ends with `stopped`, and no WARNING, ERROR or traceback of the solver on the way. With the
    default bot worker, whose stop comes first (up to BOT_WORKERS_FIRST_S), as an operator runs it."""
    stderr = tmp_path / "stderr"
    with open(stderr, "w") as err:
        server = subprocess.Popen(
            [sys.executable, "-m", "client.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
            + ["--data", str(tmp_path / "data"), "--certified-games", "all"],
            cwd=ROOT,
            env={**os.environ, "SOLRACE_CERTIFY_NICE": "0", "SOLRACE_CERTIFY_POOL": "1000"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    try:
        proc = psutil.Process(server.pid)

        def busy_worker() -> psutil.Process | None:
            for child in proc.children():
                if "spawn_main" in " ".join(child.cmdline()) and child.cpu_times().user > 0.5:
                    return child
            return None

        wait_until(busy_worker, interval=0.05, what="the solver worker under a solve")
        os.killpg(server.pid, signal.SIGTERM)
        assert server.wait(timeout=DEADLINE) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    log = stderr.read_text()
    assert log.rstrip().endswith("INFO solrace: stopped"), log
    assert "Traceback" not in log, log
    assert not [line for line in log.splitlines() if " WARNING solrace.certify" in line], log
