"""`solrace bots` with a Redis URL whose password Redis refuses: one line and exit status 2 at
the start, not a worker that retries unseen forever (a wrong password never heals)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from server.storage.embedded_redis import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]


def test_a_refused_password_stops_the_worker_at_once(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path / "data", appendonly=False, password="the-right-one").start()
    try:
        port = redis.port
        for url, said in (
            (
                f"redis://:wrong@127.0.0.1:{port}/0",
                f"Redis at redis://:***@127.0.0.1:{port}/0 refused the password of the URL: ",
            ),
            (
                f"redis://127.0.0.1:{port}/0",
                f"Redis at redis://127.0.0.1:{port}/0 asks for a password and the URL gives none (",
            ),
        ):
            done = subprocess.run(
                [sys.executable, "-m", "client.cli", "bots", "--url", "ws://127.0.0.1:1/ws"],
                cwd=ROOT,
                env={**os.environ, "SOLRACE_REDIS": url, "SOLRACE_LOG_FORMAT": "text"},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 2, done
            (line,) = done.stderr.strip().splitlines()
            assert line.startswith(f"solrace bots: {said}"), line
            assert "wrong" not in line  # the password itself is never repeated
    finally:
        redis.stop()
