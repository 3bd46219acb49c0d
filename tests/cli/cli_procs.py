"""A `solrace` command run as its own process, for what it says as it starts and stops."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def started_and_stopped(
    args: list[str], env: dict[str, str], started: str, stop: signal.Signals = signal.SIGTERM
) -> tuple[int, str]:
    """`solrace ARGS` until the first line it prints holds `started`, then `stop` (SIGTERM, as
    a service manager stops it): (its exit status, all it wrote to stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "client.cli", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert started in first, first
        proc.send_signal(stop)
        _out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, err


def started_bot(*flags: str) -> subprocess.Popen[str]:
    """`solrace bot FLAGS` in a session of its own (killed with its process group), its stdout
    and stderr piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "client.cli", "bot", *flags],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
