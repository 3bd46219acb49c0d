"""A usage error is exit 2 with argparse's one `error:` line, whichever command and check finds
it: `solrace play` said some with exit 1 (`raise SystemExit("...")`, as a failure met at run
time), `solrace bot --name` of 23 characters or more made bot names the server refused only at
the hello (exit 1), and `solrace watch`/`arena --name` of 40 characters opened the app, which
showed "cannot connect: `name`: Expected `str` of length <= 24"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LONG = "n" * 40


def usage_error(*args: str) -> str:
    """`solrace ARGS` refused as a usage error, before it connects or opens an app: its message."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "client.cli", *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,  # an app that opened waits for keys: killed here
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"solrace {' '.join(args)} was not refused: it ran")
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, done.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "--quick"], "--quick and --create need --game"),
        (["play", "--daily"], "--daily needs --game"),
        (["play", "--game", "fours-up", "--create", "--seats", "0"], "--seats must be 1 to 8"),
        (["play", "--game", "fours-up", "--quick", "--seats", "9"], "--seats must be 2 to 8"),
        (["play", "--game", "fours-up", "--create", "--time-limit", "5"], "--time-limit must be 30 to 7200"),
        (["play", "--offline", "--game", "fours-up", "--rivals", "9"], "--rivals must be 1 to 7"),
        (["play", "--rated", "--game", "fours-up"], "--rated goes with --quick or --create"),
        (["play", "--rated", "--game", "fours-up", "--create", "--seats", "1"], "2 seats or more"),
        (["play", "--offline", "--join", "r1"], "--offline cannot play a server race"),
        (["play", "--offline", "--game", "fours-up", "--quick", "--rated"], "--offline races are not rated"),
        (["play", "--offline", "--login", "ada"], "--offline has no account"),
        (["play", "--join", "http://127.0.0.1:1/"], "argument --join: no race id"),
        (["watch", "--race", "http://127.0.0.1:1/"], "argument --race: no race id"),
        (["watch", "--name", LONG], "argument --name: 1 to 24 printable characters"),
        (["arena", "--name", LONG], "argument --name: 1 to 24 printable characters"),
        (["arena", "--name", " ada"], "argument --name: 1 to 24 printable characters"),
        (
            ["bot", "--url", "ws://127.0.0.1:1/ws", "--name", "n" * 23],
            "the bots are named " + "n" * 23 + "-1:",
        ),
        (
            ["bot", "--url", "ws://127.0.0.1:1/ws", "--name", "n" * 22, "--count", "10"],
            "-1 to " + "n" * 22 + "-10",
        ),
    ],
)
def test_a_usage_error_is_exit_2(args: list[str], message: str) -> None:
    error = usage_error(*args)
    assert error.startswith(f"solrace {args[0]}: error: ") and message in error, error


def test_bot_names_of_24_characters_are_taken() -> None:
    # 21 characters and "-10": the longest name is 24, what the server takes; it fails only on
    # the closed port (exit 1), after the names passed.
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "bot", "--url", "ws://127.0.0.1:1/ws", "--name", "n" * 21]
        + ["--count", "10", "--strategy", "random"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "no server answered" in done.stderr, done
