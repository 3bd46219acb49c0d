"""A stop during the first start of the private redis-server, while it loads its data, ends the
start at once (server/cli.py `start_unless_stopped`, server/app.py `App.end_start`, with the
supervisor's `end_start`, docs/operations.md §7): the loading child is stopped, the log says
so in one line, and the exit status is a stop's, 0. The start used to wait for the load to
end (minutes for a few GB) before the stop was acted on.

A real `solrace serve` process, a real SIGTERM; its redis-server is the real one, given Redis'
`key-load-delay` by a wrapper script in front of the binary (as tests/server/test_redis_loading.py
slows a load) so that a 20 MB AOF takes 30 s to load, answering -LOADING every 3 s.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_redis_loading import fill
from waiting import DEADLINE, wait_until

from server.storage.data_folder import lock_data_folder
from server.storage.embedded_redis import redis_server_binary

ROOT = Path(__file__).resolve().parents[2]
LOAD_DELAY_US = 150_000  # per key: 200 keys, 30 s; an answer every 20 keys, 3 s (< its 10 s cap)
#: Far less than the load left at the signal (some 27 s): a stop that waited for it fails.
STOP_WITHIN_S = 10.0

# The server's process, its redis-server binary replaced by the wrapper script (argv[1]).
WITH_BINARY = """
import sys
import server.storage.embedded_redis as embedded
embedded.redis_server_binary = lambda: sys.argv[1]
from client.cli import main
sys.exit(main(["serve", *sys.argv[2:]]))
"""

pytestmark = pytest.mark.timeout(180)


def stderr_until(proc: subprocess.Popen[bytes], want: str) -> list[str]:
    """Its stderr lines, read until one holds `want` (within DEADLINE)."""
    assert proc.stderr is not None
    fd = proc.stderr.fileno()
    os.set_blocking(fd, False)
    lines: list[str] = []
    pending = b""
    end = time.monotonic() + DEADLINE
    while not any(want in line for line in lines):
        assert time.monotonic() < end, f"waited for {want!r}; stderr: {lines}"
        assert proc.poll() is None, f"exited with {proc.returncode} before {want!r}: {lines}"
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            pending += os.read(fd, 65536)
            *done, pending = pending.split(b"\n")
            lines += [line.decode() for line in done]
    return lines


def redis_children(pid: int) -> list[int]:
    """The redis-server processes `pid` started (its children, whatever thread spawned them)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if "redis-server" in Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace"):
                out.append(int(child))
    return out


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")  # a zombie
    except FileNotFoundError:
        return True


def test_a_stop_while_the_first_start_loads_ends_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    fill(data)
    wrapper = tmp_path / "redis-server"
    wrapper.write_text(f'#!/bin/sh\nexec {redis_server_binary()} "$@" --key-load-delay {LOAD_DELAY_US}\n')
    wrapper.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-c", WITH_BINARY, str(wrapper), "--host", "127.0.0.1", "--port", "0"]
        + ["--data", str(data), "--bot-workers", "0", "--certify-workers", "0"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        before = stderr_until(proc, "is loading its data")
        children = redis_children(proc.pid)
        assert len(children) == 1, children
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(STOP_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {STOP_WITHIN_S:g} s after SIGTERM (waiting for the load)")
        took = time.monotonic() - signalled
        assert proc.stdout is not None and proc.stderr is not None
        stdout = proc.stdout.read().decode()
        lines = before + proc.stderr.read().decode().splitlines()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert status == 0, lines
    assert stdout == ""  # never listened
    said = [line for line in lines if "stopped during the start" in line]
    assert len(said) == 1, lines
    assert " WARNING solrace: stopped during the start: the private redis-server had not finished" in said[0]
    assert lines[-1].endswith(" INFO solrace: stopped"), lines
    assert not any("did not start" in line or "Traceback" in line for line in lines), lines
    assert took < STOP_WITHIN_S
    # Nothing left running: the loading child is gone and the data folder free for the next start.
    wait_until(lambda: gone(children[0]), what="the loading redis-server gone")
    os.close(lock_data_folder(str(data)))
