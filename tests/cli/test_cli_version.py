"""`solrace --version` says the installed version (an operator's first question)."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"solrace {metadata.version('solrace')}\n"
