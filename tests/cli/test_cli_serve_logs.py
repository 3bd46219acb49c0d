"""`--log-format json` (or SOLRACE_LOG_FORMAT=json) for log collectors (server/logs.py,
docs/operations.md §10): every line `solrace serve` and its bot workers write to stderr is one JSON
object, with the time in UTC (ISO 8601, `Z`), the level, the logger, the message and the
traceback when there is one; the one-line refusals of a start are JSON too. Text stays the default
(tests/cli/test_cli_serve_config.py checks its lines).
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import psutil
from test_cli_serve import ROOT, serve
from waiting import DEADLINE, wait_until

from server.logs import JsonFormatter

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def records(text: str) -> list[dict[str, str]]:
    """Every line of `text` as a JSON object with the four fields (asserted)."""
    out = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"not a JSON record: {line!r} in\n{text}") from None
        assert set(record) >= {"time", "level", "logger", "message"}, line
        assert TIME.fullmatch(record["time"]), line
        out.append(record)
    return out


def test_a_record_is_one_json_line_with_its_traceback() -> None:
    try:
        raise RuntimeError("the board\nis on fire")
    except RuntimeError:
        record = logging.LogRecord(
            "solrace.gateway",
            logging.ERROR,
            __file__,
            1,
            "handler of %s failed: é\u2028",
            ("Move",),
            sys.exc_info(),
        )
    line = JsonFormatter().format(record)
    assert "\n" not in line and line.isascii()  # not even a line separator of Unicode's
    (parsed,) = records(line)
    assert parsed["level"] == "ERROR" and parsed["logger"] == "solrace.gateway"
    assert parsed["message"] == "handler of Move failed: é\u2028"
    assert parsed["exception"].startswith("Traceback (most recent call last):")
    assert parsed["exception"].endswith("RuntimeError: the board\nis on fire")


def test_serve_and_its_bot_worker_log_json(tmp_path: Path) -> None:
    """The flags (not the variables) are given to `solrace serve`: its bot worker logs JSON too,
    at the same level. The worker's own line comes when the server is killed (it notices its
    parent gone and stops)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            str(tmp_path / "data"),
            "--log-format",
            "json",
            "--log-level",
            "DEBUG",
            "--bot-workers",
            "1",
            "--certify-workers",
            "0",
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_LOG_LEVEL")},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    assert proc.stderr is not None and proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    worker: int | None = None
    try:
        assert "listening on" in proc.stdout.readline()
        started = wait_until(
            lambda: [line for line in list(lines) if "bot worker started" in line], what="the bot worker"
        )
        worker = int(re.search(r"pid (\d+)", started[0]).group(1))  # type: ignore[union-attr]
        # The worker was started with the server's format and level (not given in our environment).
        environ = Path(f"/proc/{worker}/environ").read_bytes().split(b"\0")
        assert b"SOLRACE_LOG_FORMAT=json" in environ and b"SOLRACE_LOG_LEVEL=DEBUG" in environ
        proc.kill()
        proc.wait(DEADLINE)
        reader.join(DEADLINE)  # to the end: the worker stops too, within seconds
        assert not reader.is_alive(), lines[-5:]
        # stdout says where the server listens, nothing else (a worker's own line is not there)
        assert "solrace bots" not in proc.stdout.read()
    finally:
        for pid in (proc.pid, worker):
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        proc.wait(DEADLINE)
    logged = records("".join(lines))
    assert any(r["logger"] == "solrace.app" and "private redis-server on" in r["message"] for r in logged)
    (start,) = [
        r["message"] for r in logged if r["logger"] == "solrace" and " listening on ws://" in r["message"]
    ]
    assert "log_level=DEBUG" in start and "log_format=json" in start, start  # changed from defaults
    assert any(r["logger"] == "solrace.botworkers" for r in logged), logged
    assert any(
        r["logger"] == "solrace.bots" and "the server that started this worker is gone" in r["message"]
        for r in logged
    ), logged


def test_a_refused_start_is_one_json_record(tmp_path: Path) -> None:
    done = serve("--log-format", "json", "--max-frame", "0", "--data", str(tmp_path / "data"))
    assert done.returncode == 2
    (record,) = records(done.stderr)
    assert record["level"] == "ERROR" and record["logger"] == "solrace"
    assert record["message"] == "solrace serve: --max-frame must be 256 to 16777216, not 0"


def test_a_usage_error_is_one_json_record() -> None:
    """A bad flag of `serve` logging JSON (by flag or variable) is a record, not argparse's usage."""
    for argv, env in (
        (["--log-format", "json", "--port", "nope"], {}),
        (["--port", "nope"], {"SOLRACE_LOG_FORMAT": "json"}),
    ):
        done = serve(*argv, env=env)
        assert done.returncode == 2
        (record,) = records(done.stderr)
        assert record["level"] == "ERROR", record
        assert record["message"].startswith("solrace serve: argument --port: invalid int value: 'nope'")
    done = serve("--port", "nope", env={"SOLRACE_LOG_FORMAT": "text"})  # argparse's usage, as any command
    assert done.returncode == 2 and done.stderr.startswith("usage: solrace serve")


def test_a_failed_start_is_one_json_record(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "appendonly.aof").write_bytes(b"this is not an append-only file\r\n")
    done = serve("--port", "0", "--data", str(data), env={"SOLRACE_LOG_FORMAT": "json"})
    assert done.returncode == 1
    logged = records(done.stderr)  # every line JSON: no bare traceback
    failed = [r for r in logged if r["message"].startswith("solrace serve: ")]
    assert len(failed) == 1 and failed[0]["level"] == "ERROR", logged
    assert "Bad file format reading the append only file" in failed[0]["message"]


def test_a_port_in_use_is_one_json_record_with_its_hint(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(
            "--host", "127.0.0.1", "--port", str(port), "--log-format", "json", "--data", str(tmp_path)
        )
    assert done.returncode == 1
    failed = [r for r in records(done.stderr) if r["message"].startswith("solrace serve: ")]
    assert len(failed) == 1 and failed[0]["level"] == "ERROR", done.stderr
    assert "another process listens there" in failed[0]["message"], failed


def test_an_unknown_log_format_is_refused() -> None:
    done = serve("--port", "0", env={"SOLRACE_LOG_FORMAT": "xml"})
    assert done.returncode == 2
    assert done.stderr.strip() == "solrace serve: SOLRACE_LOG_FORMAT='xml' is not text or json"
    done = serve("--port", "0", "--log-format", "xml")
    assert done.returncode == 2
    assert "argument --log-format: invalid choice: 'xml'" in done.stderr


def test_bots_run_by_hand_take_the_log_format_flag() -> None:
    """`solrace bots` started by hand (not by `serve`) takes --log-format too: its warning that
    Redis is out of reach is a JSON record."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bots",
            "--log-format",
            "json",
            "--redis",
            "redis://127.0.0.1:1/0",  # nothing listens on port 1
            "--url",
            "ws://127.0.0.1:1/ws",
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "SOLRACE_LOG_FORMAT"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait(DEADLINE)
    (record,) = records(line)
    assert record["logger"] == "solrace.bots" and record["level"] == "WARNING", record
    assert "Redis" in record["message"], record


def test_bots_refusals_are_json_records_too() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_REDIS")}
    for argv, says in (
        ([], "solrace bots: give the server's Redis URL (--redis or SOLRACE_REDIS)"),
        (["--redis", "nonsense"], "solrace bots: the Redis URL must start with redis://"),
    ):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "client.cli",
                "bots",
                "--url",
                "ws://127.0.0.1:1/ws",
                "--log-format",
                "json",
                *argv,
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        (record,) = records(done.stderr)
        assert record["level"] == "ERROR" and record["message"].startswith(says), record


def test_a_killed_server_leaves_no_plain_line_in_a_json_log(tmp_path: Path) -> None:
    """kill -9: multiprocessing's resource tracker outlives the server, removes its solver
    pool's semaphores and used to warn about them in plain text on the log's stderr."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            str(tmp_path / "data"),
            "--log-format",
            "json",
            "--bot-workers",
            "0",
            "--certify-workers",
            "1",
            "--certify-nice",  # what shows the worker past its start (the tests' default is 0)
            "1",
        ],
        cwd=ROOT,
        # Its pools of certified deals filled at once: the solver pool is at work from the start.
        env={
            **{k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "PYTHONWARNINGS")},
            "SOLRACE_CERTIFIED_GAMES": "all",
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    try:
        assert "listening on" in proc.stdout.readline()
        # Its solver pool at work: the pool's worker is up, past its start (its initializer
        # lowered its priority). Killed while the worker still read its start-up data from the
        # server, the worker printed multiprocessing's traceback in plain text, before any code
        # of ours ran there (a loaded machine killed it then): not the kill this test is about.
        server = psutil.Process(proc.pid)

        def worker_started() -> bool:
            return any(
                "spawn_main" in " ".join(c.cmdline()) and c.nice() > server.nice()
                for c in server.children(recursive=True)
            )

        wait_until(worker_started, what="the solver pool's worker started")
    finally:
        proc.kill()
        proc.wait(DEADLINE)
    # To the end of stderr: every process that holds it (the tracker last) is gone.
    reader.join(DEADLINE)
    assert not reader.is_alive(), lines[-5:]
    records("".join(lines))  # every line a JSON record (raises otherwise)
