"""`solrace` as a user meets its failures: one line on stderr, never a traceback.

Each case runs the real command in a subprocess (what a shell sees: exit status, stderr).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def solrace(*args: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


def one_line(stderr: str) -> str:
    """The error line of stderr (log lines of the server before it aside); no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("solrace")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_serve_on_a_busy_port(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = solrace("serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "data"))
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert line.startswith("solrace serve: ") and "address already in use" in line, line
    assert str(port) in line


def test_a_closed_output_pipe_ends_quietly() -> None:
    # The reading end is closed before the command starts: its first write meets EPIPE.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "client.cli", "deal", "fours-up", "--seed", "pipe"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141  # 128 + SIGPIPE, what a shell expects of `... | head`
    assert done.stderr == "", done.stderr


def test_deal_into_head_through_a_shell() -> None:
    done = subprocess.run(
        f"set -o pipefail; {sys.executable} -m client.cli deal fours-up --seed pipe | head -1",
        shell=True,
        executable="/bin/bash",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.startswith("game:        fours-up")
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode in (0, 141)  # 0 when head read everything before closing


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bot", "--stats", "fours-up", "--deals", "0"], "argument --deals: must be at least 1"),
        (["bot", "--stats", "fours-up", "--jobs", "0"], "argument --jobs: must be at least 1"),
        (["bot", "--delay-ms", "-1"], "argument --delay-ms: must be 0 or more"),
        (["bot", "--count", "x"], "argument --count: invalid positive_int value"),
        (["deal", "no-such-game"], "argument game: invalid choice"),
        (["play", "--game", "no-such-game"], "argument --game: invalid choice"),
        (["nonsense"], "unknown command 'nonsense'"),
        # Offline-only flags were silently ignored on a server: refused before the app opens.
        (["play", "--seed", "x"], "argument --seed: needs --offline"),
        (["play", "--game", "fours-up", "--rivals", "2"], "argument --rivals: needs --offline"),
        (["play", "--bot-speed", "0.5"], "argument --bot-speed: needs --offline"),
        # A name the server refuses showed as a failed connection, in the decoder's words.
        (["play", "--name", "x" * 25], "argument --name: 1 to 24 printable characters"),
        (["play", "--name", " ada"], "argument --name: 1 to 24 printable characters"),
        (["play", "--offline", "--name", ""], "argument --name: 1 to 24 printable characters"),
        # Values and combinations found after parsing are usage errors too (they exited 1).
        (["play", "--join", "http://127.0.0.1:1/"], "argument --join: no race id"),
        (["watch", "--race", "http://127.0.0.1:1/"], "argument --race: no race id"),
        (["play", "--offline", "--rivals", "9"], "--rivals must be 1 to 7"),
        # Said before any connection: the server's refusal read "`seats`: Expected `int` <= 8".
        (["play", "--game", "fours-up", "--quick", "--seats", "9"], "--seats must be 2 to 8"),
        (["play", "--game", "fours-up", "--create", "--seats", "0"], "--seats must be 1 to 8"),
        (
            ["play", "--game", "fours-up", "--create", "--time-limit", "5"],
            "--time-limit must be 30 to 7200 seconds",
        ),
    ],
)
def test_bad_flags(args: list[str], message: str) -> None:
    done = solrace(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and message in errors[0], done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # A plain play from a script (stdin not a terminal): said, not a race app left waiting.
        (["play", "--offline", "--game", "fours-up"], "solrace play: no terminal to play in"),
    ],
)
def test_bad_values_found_after_parsing(args: list[str], message: str) -> None:
    done = solrace(*args)
    assert done.returncode == 1
    assert one_line(done.stderr).startswith(message), done.stderr


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bot_with_no_server_answering_names_every_url() -> None:
    urls = [f"ws://127.0.0.1:{_closed_port()}/ws", f"ws://127.0.0.1:{_closed_port()}/ws"]
    done = solrace("bot", "--url", urls[0], "--url", urls[1])
    assert done.returncode == 1
    line = one_line(done.stderr)
    places = [u.split("//")[1].split("/")[0] for u in urls]  # said in words: where, not the URL
    assert line.startswith("solrace bot: no server answered") and all(p in line for p in places), line


def test_ctrl_c_is_one_line() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bot",
            "--stats",
            "fours-up",
            "--deals",
            "100000",
            "--jobs",
            "1",
            "--strategy",
            "greedy",  # its deals take milliseconds: the first progress report comes at once
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # As in a terminal's foreground: a suite started in the background by a
        # non-interactive shell (`make test &`) hands its children SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # the first progress report: it is running
        assert "1/100000 deals" in first, first
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        rest = proc.stderr.read()
        assert proc.wait(30) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    assert one_line(rest) == "solrace bot: interrupted", rest


def test_watch_game_is_checked() -> None:
    done = solrace("watch", "--game", "no-such-game")
    assert done.returncode == 2 and "argument --game: invalid choice" in done.stderr


def test_a_command_with_no_arguments_is_its_own_usage_error() -> None:
    """`solrace verify` alone: its own one-line refusal (the command line once failed on an
    empty argument list while looking for --log-format)."""
    done = solrace("verify")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr


def test_deal_says_an_illegal_move_in_words() -> None:
    """Not the rules engine's code "(not-accepted)": the move, where it is in --moves, and why."""
    done = solrace("deal", "rouge-et-noir", "--seed", "x", "--moves", "draw t0>t1")
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert line == "solrace deal: 't0>t1' (move 2 of --moves) is illegal: t1 does not take J♦ on 7♣", line
    assert "(not-" not in line and "illegal move" not in line
    done = solrace("deal", "rouge-et-noir", "--seed", "x", "--moves", "draw")
    assert "played:      1 move\n" in done.stdout, done.stdout
