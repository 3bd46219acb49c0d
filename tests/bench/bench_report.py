"""Run a benchmark the way its smoke tests do: a subprocess from the repository's root that
writes its figures as JSON (`--json FILE`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_bench(tmp_path: Path, *args: str, timeout: float) -> tuple[subprocess.CompletedProcess[str], Any]:
    """`python ARGS --json FILE`, which must exit 0 within `timeout` seconds: its completed
    process (stdout and stderr as text) and the figures read back from FILE."""
    out = tmp_path / "r.json"
    argv = [sys.executable, *args, "--json", str(out)]
    # Its own process group: past the timeout the bench's server, echo and redis-server go
    # with it (killing the bench alone left them running).
    with subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as child:
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise
    proc = subprocess.CompletedProcess(argv, child.returncode, stdout, stderr)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads(out.read_text())
