"""A bot worker runs in a session of its own (server/botworkers.py): when the server that
started it dies, it must stop by itself, also when its Redis and its server are gone."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


# The server: a process that starts the worker as `solrace serve` does (its own pid as --parent,
# a session of its own), says the worker's pid, and waits. Its stdout is the worker's too.
SERVER = """
import os, subprocess, sys, time
worker = subprocess.Popen(
    [sys.executable, "-m", "client.cli", "bots", "--url", "ws://127.0.0.1:1/ws", "--parent", str(os.getpid())],
    start_new_session=True,
)
print(worker.pid, flush=True)
time.sleep(600)
"""


def gone(pid: int) -> bool:
    """No such process, or one that ended and waits to be reaped (its new parent may not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_worker_whose_server_is_gone_stops() -> None:
    # Its parent was the test before: a worker given a --parent that was never its parent
    # stopped at once, which passed for noticing the "server" killed (now refused: --parent).
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        cwd=ROOT,
        env={**os.environ, "SOLRACE_REDIS": "redis://127.0.0.1:1/0"},  # nothing there: Redis is gone too
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    worker: int | None = None
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert "solrace bots: worker" in server.stdout.readline()
        server.kill()
        server.wait(5)
        wait_until(lambda: gone(worker), what="the worker to stop")
        assert "the server that started this worker is gone" in server.stdout.read()
    finally:
        for pid in (server.pid, worker):
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        server.wait(5)
