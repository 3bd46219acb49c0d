"""A bot worker runs in a session of its own (server/botworkers.py): when the server that
started it dies, it must stop by itself, also when its Redis and its server are gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from waiting import DEADLINE

ROOT = Path(__file__).resolve().parents[2]


def test_a_worker_whose_server_is_gone_stops() -> None:
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bots",
            "--url",
            "ws://127.0.0.1:1/ws",
            "--parent",
            str(parent.pid),
        ],
        cwd=ROOT,
        env={**os.environ, "SOLRACE_REDIS": "redis://127.0.0.1:1/0"},  # nothing there: Redis is gone too
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert worker.stdout is not None
        assert "solrace bots: worker" in worker.stdout.readline()
        parent.kill()
        parent.wait(5)
        assert worker.wait(DEADLINE) == 0
        assert "the server that started this worker is gone" in worker.stdout.read()
    finally:
        for p in (parent, worker):
            if p.poll() is None:
                p.kill()
                p.wait(5)
