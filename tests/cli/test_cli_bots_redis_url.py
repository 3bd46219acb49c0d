"""`solrace bots` reads its Redis URL as `solrace serve` does (server/config/checks.py
`check_redis_url`): a bad port, a db that is no number, a sentinel URL without its service,
a cluster URL without nodes were a traceback from the start's password check, and a db that
is no number (`/x`) started a worker that retried forever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bots(redis: str, *, flag: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_REDIS")}
    args = ["bots", "--url", "ws://127.0.0.1:1/ws"]
    if flag:
        args += ["--redis", redis]
    else:
        env["SOLRACE_REDIS"] = redis
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,  # a worker that started would run until killed: this ends the test
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://127.0.0.1:abc/0", "has a port that is not a number 1 to 65535"),
        ("redis://127.0.0.1:99999/0", "has a port that is not a number 1 to 65535"),
        ("redis+sentinel://127.0.0.1:1/", "must name the monitored primary"),
        ("redis+cluster://", "names no node"),
        ("redis://[::1/0", "Invalid IPv6 URL"),
        ("redis://127.0.0.1:1/x", "has a db that is not a number"),
        ("rediss://127.0.0.1:abc/0", "has a port that is not a number 1 to 65535"),
    ],
)
def test_a_bad_redis_url_is_one_line_and_exit_2(url: str, message: str) -> None:
    done = bots(url)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    line = done.stderr.strip()
    assert line.startswith(f"solrace bots: --redis {message}") and line.endswith(f": {url!r}"), line
    assert "\n" not in line, line


def test_the_variable_is_checked_too_and_its_password_is_not_said() -> None:
    done = bots("redis://:pass-word-9@127.0.0.1:1/x", flag=False)
    assert done.returncode == 2, done
    assert done.stderr.strip() == (
        "solrace bots: --redis has a db that is not a number: 'redis://:***@127.0.0.1:1/x'"
    ), done.stderr
