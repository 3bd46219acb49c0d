"""`solrace serve` refuses what it cannot do, in one line: a shared data folder, a port out of range."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE, until, wait_until

ROOT = Path(__file__).resolve().parents[2]


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`solrace serve` run to its end (a refusal), with extra SOLRACE_* variables in `env`."""
    return subprocess.run(
        [sys.executable, "-m", "client.cli", "serve", "--host", "127.0.0.1", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def serving(data: Path, stderr: Path) -> subprocess.Popen[str]:
    """A `solrace serve` left running on `data`, its first stdout line to read, its stderr to a file."""
    with open(stderr, "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "client.cli", "serve", "--port", "0", "--data", str(data)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            start_new_session=True,
        )


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def ignores_sigint(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


def error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("solrace serve: ")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_data_folder_serves_one_server_at_a_time(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = serving(data, tmp_path / "first.err")
    try:
        assert first.stdout is not None
        assert "listening on" in first.stdout.readline(), (tmp_path / "first.err").read_text()
        second = serve("--port", "0", "--data", str(data))
        assert second.returncode == 1
        line = error_line(second.stderr)
        assert "data folder" in line and "in use" in line and f"pid {first.pid}" in line, line
        # the first one is untouched
        assert first.poll() is None
        first.send_signal(signal.SIGTERM)
        assert first.wait(30) == 0
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
    # once it is gone, the folder is free again (the lock dies with its holders)
    again = serving(data, tmp_path / "again.err")
    try:
        assert again.stdout is not None
        assert "listening on" in again.stdout.readline(), (tmp_path / "again.err").read_text()
    finally:
        again.send_signal(signal.SIGTERM)
        again.wait(30)


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_refused(tmp_path: Path, port: str) -> None:
    done = serve("--port", port, "--data", str(tmp_path / "data"))
    assert done.returncode == 2
    assert error_line(done.stderr) == f"solrace serve: --port must be 0 to 65535, not {port}"


def test_a_bad_environment_value_is_one_line(tmp_path: Path) -> None:
    done = serve("--data", str(tmp_path / "data"), env={"SOLRACE_PORT": "eighty"})
    assert done.returncode == 2
    assert error_line(done.stderr) == "solrace serve: SOLRACE_PORT='eighty' is not an integer"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-name", "30"], "--max-name must be 1 to 24 (the wire format's bound), not 30"),
        (
            ["--max-seats", "12"],
            "--max-seats must be 2 (the default of create and quick) to 8 (the wire format's bound), not 12",
        ),
        (
            ["--max-seats", "1"],
            "--max-seats must be 2 (the default of create and quick) to 8 (the wire format's bound), not 1",
        ),
        (
            ["--time-limit-max-s", "9000"],
            "--time-limit-min-s and --time-limit-max-s must lie within 30..7200 s"
            " (the wire format's bounds), the least first, not 30..9000",
        ),
        (
            ["--time-limit-max-s", "300"],
            "--time-limit-s must lie within --time-limit-min-s..--time-limit-max-s, 30..300 s, not 600"
            " (its default: give it too)",
        ),
        # each refused every attempt (too close to the close) or crashed the start
        (
            ["--daily-time-limit-s", "20"],
            "--daily-time-limit-s must lie within --time-limit-min-s..--time-limit-max-s, 30..7200 s, not 20",
        ),
        (["--daily-replay-top", "0"], "--daily-replay-top must be 1 to 10000, not 0"),
    ],
)
def test_limits_that_widen_the_wire_bounds_or_miss_their_default_are_refused(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    """welcome.limits must say what is accepted (docs/protocol.md §7): a limit only narrows
    the wire format's bounds, and a request that leaves the field out must still pass."""
    done = serve(*flags, "--data", str(tmp_path / "data"))
    assert done.returncode == 2
    assert error_line(done.stderr) == f"solrace serve: {message}"


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


async def test_a_stopping_server_stops_accepting_before_its_bot_workers_stop(
    fast_settings, monkeypatch, capsys
) -> None:
    """docs/operations.md §8: on SIGTERM the listening socket closes at once (new connections
    go to the other processes), before the bot workers, which may take seconds, are stopped.
    The workers here are a stand-in that stops only when the test lets it."""
    from server import botworkers, cli

    stopping, release = asyncio.Event(), asyncio.Event()

    class SlowWorkers:
        def __init__(self, *args: object) -> None:
            pass

        def start(self) -> None:
            pass

        async def stop(self) -> None:
            stopping.set()
            await release.wait()

    monkeypatch.setattr(botworkers, "BotWorkers", SlowWorkers)
    served = asyncio.create_task(cli.serve(fast_settings.replace(bot_workers=1)))
    out: list[str] = []

    def listening() -> re.Match[str] | None:
        out.append(capsys.readouterr().out)
        return re.search(r"ws://127\.0\.0\.1:(\d+)", "".join(out))

    found = await until(listening, what="the server listening")
    port = int(found.group(1))
    assert not refused(port)
    os.kill(os.getpid(), signal.SIGTERM)  # serve's own handler takes it
    await asyncio.wait_for(stopping.wait(), DEADLINE)
    assert await asyncio.to_thread(refused, port)  # while the workers are still stopping
    release.set()
    await asyncio.wait_for(served, DEADLINE)


def test_ctrl_c_stops_serve_and_all_its_helpers_quietly(tmp_path: Path) -> None:
    """A terminal's Ctrl-C (SIGINT to the whole process group, as `make run` gets it) is the
    server's to act on: one orderly stop, exit 0, and no traceback nor alarm in the log. It
    used to reach the private redis-server (restarted mid-shutdown), the solver's workers
    (a BrokenProcessPool traceback) and the bot workers (Redis errors) directly."""
    err = tmp_path / "stderr"
    with open(err, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "client.cli", "serve", "--port", "0", "--data", str(tmp_path / "data")],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,
            # As in a terminal's foreground (a suite run in the background hands SIGINT ignored).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        assert proc.stdout is not None
        assert "ws://" in proc.stdout.readline()
        # Its helpers are up: the bot worker, and the solver's workers refilling the pools.
        wait_until(lambda: "bot worker started" in err.read_text(), what="the bot worker")
        sid = os.getsid(proc.pid)

        def helpers() -> dict[str, list[int]]:
            kinds: dict[str, list[int]] = {"redis": [], "bots": [], "solver": []}
            for pid in children(proc.pid):
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                kind = "redis" if "redis-server" in cmd else "bots" if " bots " in cmd else "solver"
                kinds[kind].append(pid)
            return kinds

        # Ctrl-C does not reach them: their own sessions, or SIGINT ignored once at work.
        def apart() -> bool:
            k = helpers()
            return (
                all(len(k[kind]) == 1 for kind in ("redis", "bots"))
                and bool(k["solver"])
                and all(os.getsid(pid) != sid for pid in k["redis"] + k["bots"])
                and all(ignores_sigint(pid) for pid in k["solver"])
            )

        wait_until(apart, what=f"helpers out of Ctrl-C's reach: {helpers()}")
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(DEADLINE) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    text = err.read_text()
    after = text[text.index("shutting down") :]
    assert "Traceback" not in text and "WARNING" not in after and "ERROR" not in after, text
