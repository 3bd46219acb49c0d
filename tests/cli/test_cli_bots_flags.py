"""`solrace bots` refuses a bound it cannot keep, as `solrace serve` refuses the same settings
(RANGES, server/config/checks.py): `--max-bots 0` was taken for 1 without a word, and the
others were taken as given (a negative pause, a niceness the kernel clamps)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import started_and_stopped

ROOT = Path(__file__).resolve().parents[2]


def refused(flags: list[str], env: dict[str, str]) -> str:
    """`solrace bots FLAGS`, refused before it reaches Redis (exit 2): what it said."""
    env = {**env, "SOLRACE_REDIS": "redis://127.0.0.1:1/0"}  # never reached: refused before
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "bots", "--url", "ws://127.0.0.1:1/ws", *flags],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 2, done
    return done.stderr.strip()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-bots", "0"], "solrace bots: --max-bots must be at least 1, not 0"),
        (["--think-ms", "0"], "solrace bots: --think-ms must be at least 1, not 0"),
        (["--move-ms", "-1"], "solrace bots: --move-ms must be at least 0, not -1"),
        (["--wait-s", "0"], "solrace bots: --wait-s must be 1 to 86400, not 0"),
        (["--nice", "40"], "solrace bots: --nice must be 0 to 19, not 40"),
    ],
)
def test_a_bound_out_of_range_is_refused(flags: list[str], message: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT",)}
    assert refused(flags, env) == message


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        (
            "SOLRACE_LOG_LEVEL",
            "WARN",
            "solrace bots: SOLRACE_LOG_LEVEL='WARN' is not DEBUG, INFO, WARNING or ERROR",
        ),
        ("SOLRACE_LOG_FORMAT", "xml", "solrace bots: SOLRACE_LOG_FORMAT='xml' is not text or json"),
    ],
)
def test_an_unknown_log_variable_is_refused(variable: str, value: str, message: str) -> None:
    """As `solrace serve` refuses them (tests/cli/test_cli_serve_config.py), not taken for the
    default without a word."""
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_LOG_LEVEL")}
    env[variable] = value
    assert refused([], env) == message


def test_a_password_in_the_redis_flag_is_warned_about(tmp_path: Path) -> None:
    """`--redis` with a password puts it in the process list (the variable keeps it out): the
    worker runs all the same and says so in one WARNING, never repeating the password."""
    from server.storage.embedded_redis import EmbeddedRedis

    redis = EmbeddedRedis(tmp_path / "redis", appendonly=False, password="pass-word-3").start()
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_REDIS")}
    try:
        _status, err = started_and_stopped(
            ["bots", "--url", "ws://127.0.0.1:1/ws", "--nice", "0"]
            + ["--redis", f"redis://:pass-word-3@127.0.0.1:{redis.port}/0"],
            env,
            "solrace bots: worker",
        )
    finally:
        redis.stop()
    assert "pass-word-3" not in err
    warned = [line.split(" WARNING solrace.bots: ", 1)[1] for line in err.splitlines() if " WARNING " in line]
    assert warned == [
        "--redis gives a password on the command line, which every local user can list: "
        "give the URL in SOLRACE_REDIS instead"
    ], err


def test_a_parent_that_is_not_the_workers_is_refused() -> None:
    # It was taken, and the worker stopped within a second saying its server was gone (twice).
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT",)}
    said = refused(["--parent", "1"], env)
    assert said == f"solrace bots: --parent 1 is not this worker's parent ({os.getpid()})", said
