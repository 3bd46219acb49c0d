"""`solrace verify -` with stdin closed, and a `--seed` holding a byte that is not UTF-8: one
line and exit 2, not a traceback (`AttributeError` on a None stdin; `UnicodeEncodeError` on
the lone surrogate Python reads such a byte as) in `verify`, `analyze` and `deal`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import ROOT


def solrace(*args: str | bytes, closed_stdin: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args],
        cwd=ROOT,
        stdin=None if closed_stdin else subprocess.DEVNULL,
        # `<&-`: the command starts with no file descriptor 0, and Python's sys.stdin is None
        preexec_fn=(lambda: os.close(0)) if closed_stdin else None,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", ["verify", "analyze"])
def test_reading_a_closed_stdin_is_one_line(command: str) -> None:
    done = solrace(command, "-", closed_stdin=True)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    assert (
        done.stderr.strip()
        == f"solrace {command}: -: stdin is closed: nothing to read the replay document from"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["deal", "racing-aces", "--seed", b"a\xffb"],
        ["verify", "DOC", "--seed", b"a\xff"],
        ["verify", "DOC", "--fingerprint", b"\xff" * 4],
        ["analyze", "DOC", "--seed", b"a\xff"],
    ],
)
def test_a_seed_that_is_not_utf8_is_refused_in_one_line(args: list[str | bytes], tmp_path: Path) -> None:
    # A readable document, so that the seed given is hashed and the fingerprint printed
    doc = tmp_path / "replay.json"
    doc.write_text(json.dumps({"game": "fours-up", "seed": "example", "ranking": [], "players": []}))
    done = solrace(*[str(doc) if a == "DOC" else a for a in args])
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    assert "not UTF-8 text" in done.stderr.splitlines()[-1], done.stderr
