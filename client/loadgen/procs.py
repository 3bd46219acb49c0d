"""Processes under test: start them, find them, read their CPU and memory from /proc.

CPU is utime+stime of /proc/PID/stat (clock ticks, 10 ms on Linux), the
figure that stays stable on a shared machine where throughput swings; memory
is VmRSS of /proc/PID/status.
"""

from __future__ import annotations

import os
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[2]


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process `pid`."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields_ = data[data.rindex(b")") + 2 :].split()
    return (int(fields_[11]) + int(fields_[12])) / TICK


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def runq_wait_s(pid: int) -> float:
    """Seconds the process's main thread spent runnable but waiting for a CPU (/proc/PID/schedstat).

    On a shared machine this tells contention from a slow server: a server
    that waits for a CPU while it has work cannot keep its latency.
    """
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[1]) / 1e9


def syscalls(pid: int) -> int:
    """Read + write system calls so far (syscr + syscw of /proc/PID/io): batching shows here."""
    n = 0
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith(("syscr:", "syscw:")):
                n += int(line.split()[1])
    return n


def children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        rest = data[data.rindex(b")") + 2 :].split()
        if int(rest[1]) == pid:
            out.append(int(d))
    return out


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def machine_idle_s() -> float:
    """Idle CPU seconds of the whole machine (all CPUs) since boot."""
    with open("/proc/stat") as f:
        parts = f.readline().split()
    return (int(parts[4]) + int(parts[5])) / TICK


def raise_nofile(want: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, want), hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


class Readings:
    """/proc readings of a set of named processes (`pids()`)."""

    def pids(self) -> dict[str, int]:
        raise NotImplementedError

    def cpu(self) -> dict[str, float]:
        out = {}
        for n, p in self.pids().items():
            try:
                out[n] = cpu_s(p)
            except OSError:
                out[n] = float("nan")
        return out

    def runq_wait(self) -> dict[str, float]:
        out = {}
        for n, p in self.pids().items():
            try:
                out[n] = runq_wait_s(p)
            except (OSError, IndexError, ValueError):
                out[n] = float("nan")
        return out

    def syscalls(self) -> dict[str, int]:
        out = {}
        for n, p in self.pids().items():
            try:
                out[n] = syscalls(p)
            except OSError:
                out[n] = 0
        return out

    def rss(self) -> dict[str, int]:
        out = {}
        for n, p in self.pids().items():
            try:
                out[n] = rss_bytes(p)
            except OSError:
                out[n] = 0
        return out


@dataclass
class Proc(Readings):
    """A server subprocess: its pid, URL and any helper pids (redis-server)."""

    name: str
    popen: subprocess.Popen[bytes]
    host: str
    port: int
    extra: dict[str, int] = field(default_factory=dict)  # name -> pid (e.g. redis-server)
    tmp: tempfile.TemporaryDirectory[str] | None = None
    log: Path | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def pids(self) -> dict[str, int]:
        return {self.name: self.pid, **self.extra}

    def stop(self, timeout: float = 10.0) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        if self.tmp is not None:
            self.tmp.cleanup()


@dataclass
class Watched(Readings):
    """Processes watched but not started here (the server's redis-server during the baseline)."""

    named: dict[str, int]

    @property
    def pid(self) -> int:
        return next(iter(self.named.values()))

    def pids(self) -> dict[str, int]:
        return dict(self.named)


_URL = re.compile(rb"ws://([0-9.]+):([0-9]+)")


def _start(
    name: str,
    argv: list[str],
    timeout: float,
    env: dict[str, str] | None = None,
    tmp: tempfile.TemporaryDirectory[str] | None = None,
) -> Proc:
    logdir = Path(tmp.name) if tmp is not None else Path(tempfile.gettempdir())
    log = logdir / f"{name}.stderr.log"
    errf = open(log, "wb")
    popen = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=errf, stdin=subprocess.DEVNULL, cwd=str(ROOT), env=env
    )
    errf.close()
    deadline = time.monotonic() + timeout
    line = b""
    assert popen.stdout is not None
    while time.monotonic() < deadline:
        r, _, _ = select.select([popen.stdout], [], [], 0.1)
        if r:
            line = popen.stdout.readline()
            m = _URL.search(line)
            if m:
                return Proc(name, popen, m.group(1).decode(), int(m.group(2)), tmp=tmp, log=log)
            if not line and popen.poll() is not None:
                break
        elif popen.poll() is not None:
            break
    popen.kill()
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    raise RuntimeError(f"{name} did not start (exit {popen.poll()}); stderr tail:\n{tail}")


SERVER_FLAGS = [
    # The bench is one address with many connections sending far above a
    # human's rate: lift the per-address and per-connection limits, and make
    # countdowns short so finished races are replaced quickly.
    "--max-conn-per-addr",
    "100000",
    "--rate",
    "1000000",
    "--burst",
    "1000000",
    "--countdown-ms",
    "100",
    "--time-limit-max-s",
    "7200",
]


def start_echo(timeout: float = 20.0) -> Proc:
    return _start("echo", [sys.executable, "-m", "client.loadgen.echo", "--port", "0"], timeout)


def start_server(redis: str = "", extra_args: list[str] | None = None, timeout: float = 30.0) -> Proc:
    """`solrace serve` on 127.0.0.1, a free port, its private Redis unless `redis`."""
    tmp = tempfile.TemporaryDirectory(prefix="solrace-bench-")
    argv = [
        sys.executable,
        "-m",
        "client.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data",
        str(Path(tmp.name) / "data"),
        "--log-level",
        "WARNING",
        # The solver and bot workers are other processes that would compete for the same cores
        # while the move path is measured; `--server-arg` can turn them back on.
        "--certify-workers",
        "0",
        "--bot-workers",
        "0",
    ]
    if redis:
        argv += ["--redis", redis]
    argv += extra_args or []
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    p = _start("server", argv, timeout, env=env, tmp=tmp)
    for _ in range(50):
        if redis or any(comm(k).startswith("redis") for k in children(p.pid)):
            break
        time.sleep(0.1)
    for k in children(p.pid):
        if comm(k).startswith("redis"):
            p.extra["redis-server"] = k
    return p
