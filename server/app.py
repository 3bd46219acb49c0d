"""Wiring: Redis (external or private), store, service, gateway; start and graceful stop.

`App(settings)` is what `solrace serve` and the tests run::

    app = App(settings)
    await app.start()          # app.ws_url, app.http_url
    ...
    await app.stop()           # stop accepting, land in-flight moves, close 1012, stop Redis
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import socket
from collections.abc import Awaitable

from argon2 import PasswordHasher
from redis.exceptions import RedisClusterException, RedisError

from .arena import ArenaStore
from .certify import Certifier
from .certify.handlers import install as install_certify
from .certify.rules import certified_games
from .config import Settings
from .daily import Daily
from .daily.handlers import install as install_daily
from .handlers.arena import install as install_arena
from .handlers.rated import RatedHandlers
from .handlers.rated import install as install_rated
from .metrics import Metrics
from .net.gateway import Gateway
from .ratings import Accounts, Pool, Ratings
from .service import Service
from .storage.data_folder import PASSWORD_NAME, lock_data_folder, private_password
from .storage.embedded_redis import EmbeddedRedis, RedisStartError
from .storage.host_memory import auto_maxmemory_mb
from .storage.keys import new_race_id
from .storage.resp import auth_refusal, redact_url
from .storage.store import Store
from .storage.supervisor import Supervisor, end_start

log = logging.getLogger("solrace.app")


class RedisUnreachable(OSError):
    """Redis did not answer at the start (an OSError: `solrace serve` says it in one line)."""


class StartEnded(Exception):
    """A stop asked for during the start ended it (`App.end_start`): not a failure."""


#: File descriptors kept for everything but client connections (with --redis-pool on top):
#: the move pipe, pub/sub and health connections to Redis, the solver's and bots' pipes,
#: static files being served, logs.
FD_RESERVE = 256
#: The client connections one process is sized for (docs/benchmarks.md measures 10,000):
#: an open-files limit that leaves room for fewer is worth a warning.
WANT_CONNECTIONS = 10_000
#: Where RLIMIT_NOFILE's hard limit is "unlimited": Linux refuses more than fs.nr_open anyway.
NOFILE_UNLIMITED = 1 << 20


def raise_open_files() -> int:
    """Raise the soft limit of open files to the hard limit (a shell's default soft limit of
    1,024 would cap the process at about a thousand sockets); returns the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NOFILE_UNLIMITED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-files limit from %d to %d: %s", soft, target, exc)
    return NOFILE_UNLIMITED if soft == resource.RLIM_INFINITY else soft


def connection_cap(settings: Settings, nofile: int) -> int:
    """The TCP connections this process may hold (MAX_CONNECTIONS), within what the open-files
    limit `nofile` leaves once Redis and files have their share: past it accept() would fail
    (EMFILE), and clients would take the descriptors a Redis reconnection needs."""
    reserve = FD_RESERVE + settings.redis_pool
    room = max(nofile - reserve, 1)
    wanted = settings.max_connections
    if wanted > room:
        log.warning(
            "--max-connections %d needs %d open files, the limit is %d: at most %d connection%s "
            "(raise the hard limit: ulimit -Hn, systemd LimitNOFILE, docker --ulimit nofile)",
            wanted,
            wanted + reserve,
            nofile,
            room,
            "" if room == 1 else "s",
        )
    elif not wanted and room < WANT_CONNECTIONS:
        log.warning(
            "the open-files limit %d leaves room for %d connections, fewer than %d "
            "(raise the hard limit: ulimit -Hn, systemd LimitNOFILE, docker --ulimit nofile)",
            nofile,
            room,
            WANT_CONNECTIONS,
        )
    return min(wanted, room) if wanted else room


#: How often a start looks for a port free on every address of --host (`shared_port`): another
#: process may take it between the look and the bind.
PORT_ATTEMPTS = 5


def shared_port(host: str) -> int:
    """A port free on every address the listening sockets of `--host HOST --port 0` bind (a name
    may resolve to several, e.g. 127.0.0.1 and ::1; "" is every interface, IPv4 and IPv6), so
    that they share it as they share a port given, and one URL names them all (the OS would
    pick one for each). 0 when it names a single address: the OS picks it at the bind."""
    # As asyncio's and uvloop's create_server resolve and bind them.
    infos = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    addresses = sorted({(family, sockaddr) for family, _, _, _, sockaddr in infos})
    if len(addresses) < 2:
        return 0
    for _attempt in range(PORT_ATTEMPTS):
        port = 0
        socks: list[socket.socket] = []
        try:
            for family, sockaddr in addresses:
                sock = socket.socket(family, socket.SOCK_STREAM)
                socks.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind((sockaddr[0], port, *sockaddr[2:]))
                port = port or sock.getsockname()[1]
            return port
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
        finally:
            for sock in socks:
                sock.close()
    raise OSError(errno.EADDRINUSE, f"found no port free on every address of --host {host!r}")


class App:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.redis_proc: EmbeddedRedis | None = None
        self.supervisor: Supervisor | None = None
        self.data_lock: int | None = None  # fd of the data folder's lock (private redis-server only)
        self.metrics = Metrics()
        self.store: Store | None = None
        self.service: Service | None = None
        self.daily: Daily | None = None
        self.accounts: Accounts | None = None
        self.ratings: Ratings | None = None
        self.rated: RatedHandlers | None = None
        self.gateway: Gateway | None = None
        self.certifier: Certifier | None = None
        self._redis_starting: asyncio.Future[EmbeddedRedis] | None = None  # its first start
        self._ending = False  # `end_start` was called

    async def start(self) -> App:
        # First: the private redis-server inherits the limit, and sockets are what it bounds.
        nofile = raise_open_files()
        url = self.settings.redis
        if not url:
            # No --redis: a private redis-server with its AOF in the data folder, which we
            # lock first (the redis-server child inherits the lock, so it is held until both exit).
            self.data_lock = lock_data_folder(self.settings.data)
            maxmemory = auto_maxmemory_mb(self.settings.redis_maxmemory_mb)
            self.redis_proc = EmbeddedRedis(
                self.settings.data,
                appendfsync=self.settings.redis_fsync,
                keep_fds=(self.data_lock,),
                password=private_password(self.settings.data),
                maxmemory_mb=maxmemory,
            )
            # No await between the check and the start: `end_start` sees the start or it is
            # not begun.
            if self._ending:
                raise StartEnded("stopped during the start, before the private redis-server started")
            self._redis_starting = asyncio.ensure_future(asyncio.to_thread(self.redis_proc.start))
            try:
                await asyncio.shield(self._redis_starting)
            except RedisStartError:
                if not self._ending:
                    raise
            if self._ending:  # its start failed as its child was stopped, or just made it
                raise StartEnded(
                    "stopped during the start: the private redis-server had not finished loading "
                    "its data (the next start loads it again)"
                )
            url = self.redis_proc.url
            data = self.redis_proc.data_dir
            log.info(
                "private redis-server on redis://127.0.0.1:%d/0 (password in %s, data in %s, %s)",
                self.redis_proc.port,
                data / PASSWORD_NAME,
                data,
                f"maxmemory {maxmemory:,} MiB, noeviction" if maxmemory else "no maxmemory",
            )
            self.redis_proc.report_advice()  # e.g. vm.overcommit_memory, after the line above
            self.supervisor = Supervisor(self.redis_proc)
            self.supervisor.start()
        self.store = Store(url, self.settings)
        if self.supervisor is not None:
            self.store.health.process_down = self.supervisor.down
            self.supervisor.on_back = self.store.redis_back
        try:
            await self.store.start()
        except (RedisError, RedisClusterException, OSError) as exc:
            # The one failure an operator meets at every misconfiguration: say it in one line.
            # (redis-py's "no node of the cluster answers" is neither a RedisError nor an OSError.)
            raise RedisUnreachable(
                auth_refusal(url, exc) or f"cannot reach Redis at {redact_url(url)}: {exc}"
            ) from None
        self.service = Service(self.settings, self.store, self.metrics)
        st = self.settings
        self.daily = Daily(
            self.store.redis,
            clock=self.service.now_ms,
            secret=st.daily_secret or None,
            time_limit_s=st.daily_time_limit_s,
            min_attempt_s=st.time_limit_min_s,
            start_lead_ms=st.countdown_ms + 2000,
            replay_top=st.daily_replay_top,
            # An attempt's race record lives --finished-ttl-s after its end (at the latest
            # the close): its mark (the day it belongs to) as long, and a day more.
            race_mark_ms=(st.finished_ttl_s + 86_400) * 1000,
            # Every process reads the same pinned choice; those with a worker also search ahead.
            certified_games=certified_games(st.certified_games),
        )
        install_daily(self.service, self.daily)
        self.certifier = Certifier(self.store.redis, st, daily=self.daily)
        install_certify(self.service, self.certifier)
        await self.certifier.start()
        redis, clock = self.store.redis, self.service.now_ms
        hasher = PasswordHasher(time_cost=st.password_hash_passes, memory_cost=st.password_hash_memory_kib)
        self.accounts = Accounts(redis, clock=clock, hasher=hasher)
        self.ratings = Ratings(redis, clock=clock)
        self.rated = install_rated(self.service, self.accounts, self.ratings, Pool(redis, clock), self.daily)
        await self.service.start()
        install_arena(
            self.service,
            ArenaStore(
                self.store.redis,
                clock=self.service.now_ms,
                race_id=new_race_id,
                countdown_ms=self.settings.countdown_ms,
            ),
        )
        cap = connection_cap(self.settings, nofile)
        log.info("open-files limit %d: at most %d connection%s", nofile, cap, "" if cap == 1 else "s")
        for attempt in range(PORT_ATTEMPTS):
            port = self.settings.port or await asyncio.to_thread(shared_port, self.settings.host)
            settings = self.settings.replace(port=port)
            self.gateway = Gateway(settings, self.service, self.metrics, max_connections=cap)
            try:
                await self.gateway.start()
                break
            except OSError as exc:
                # A port found free on every address but taken since: look again (a port given,
                # or one the OS picks at the bind, is as it is).
                retry = port and not self.settings.port and exc.errno == errno.EADDRINUSE
                if not retry or attempt == PORT_ATTEMPTS - 1:
                    raise
        return self

    @property
    def port(self) -> int:
        assert self.gateway is not None
        return self.gateway.port

    @property
    def ws_url(self) -> str:
        return f"ws://{self._host()}:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://{self._host()}:{self.port}/"

    @property
    def addresses(self) -> list[str]:
        """Every address it listens on, `ADDRESS:PORT` (`[ADDRESS]:PORT` for IPv6), IPv4 first:
        one, or those of a --host that names several (a name, "" for every interface)."""
        return [f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in self._bound()]

    def _bound(self) -> list[tuple[str, int]]:
        assert self.gateway is not None and self.gateway.server is not None
        names = sorted((sock.family, sock.getsockname()[:2]) for sock in self.gateway.server.sockets)
        return [(str(name[0]), int(name[1])) for _family, name in names]

    def _host(self) -> str:
        # "" (every interface) names no host a client can reach: the first address bound does
        # (0.0.0.0 or ::, this host's own for a client on it, as with --host 0.0.0.0).
        host = self.settings.host or self._bound()[0][0]
        return f"[{host}]" if ":" in host else host

    async def end_start(self) -> None:
        """End a start under way, for a stop asked for meanwhile. The private redis-server's
        first start waits as long as it loads its data (minutes for a large AOF): its child is
        stopped, as the supervisor's stop ends a restart, and `start` raises StartEnded. The
        rest of a start is short, and let finish (the stop then follows as usual)."""
        self._ending = True
        if self.redis_proc is not None and self._redis_starting is not None:
            await end_start(self.redis_proc, self._redis_starting)

    def stop_accepting(self) -> None:
        """The first step of a graceful stop, at once (docs/operations.md §8)."""
        if self.gateway is not None:
            self.gateway.stop_accepting()

    async def stop(self, alongside: Awaitable[None] | None = None) -> None:
        """Stop everything (docs/operations.md §8). `alongside`: a stop that runs meanwhile
        (the bot workers'), awaited before Redis is closed, which it may still be using."""
        if self.supervisor is not None:
            await self.supervisor.stop()
        if self.gateway is not None:
            await self.gateway.close()
        if self.service is not None:
            await self.service.stop()
        if self.certifier is not None:
            await self.certifier.stop()
        if alongside is not None:
            await alongside
        if self.store is not None:
            await self.store.close()
        if self.redis_proc is not None:
            await asyncio.to_thread(self.redis_proc.stop)
        if self.data_lock is not None:
            os.close(self.data_lock)
            self.data_lock = None
