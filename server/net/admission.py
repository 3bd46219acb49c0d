"""Who may connect: open connections per address and per player, and each player's rate credits.

MAX_CONN_PER_ADDR is checked against this process's count at once (no
Redis round trip for a flood from one address), then against the count over
all processes, kept in Redis (server/storage/sessions.py); so is
MAX_CONN_PER_PLAYER once hello has named the player. If Redis cannot be
reached, the local counts alone decide.

The counts in Redis are written in batches: one pipeline writes this
process's current count of each name that changed (absolute counts, so a
lost batch cannot skew them) and reads the other processes' counts of the
same names. A new connection and a hello wait for the next batch, sent as
soon as the one in flight is answered; a closed connection is written at
most `BATCH_S` later, with whatever batch comes next. A connection is
admitted if its rank among this process's connections of that name plus the
other processes' count stays within the limit. A reconnect storm of
thousands of connections therefore costs a few pipelines, not a script
round trip per connection, per hello and per close. Every third of the
counts' lifetime all counts are written again, so a process that dies takes
its counts with it (server/storage/sessions.py). That renewal is spread over
the period, a tenth of the names at a time, in batches of at most
`RENEW_BATCH` names: with tens of thousands of connections one batch of all
of them would hold the move pipe, and Redis, for a noticeable time every few
seconds.

Rate credits (RATE, BURST) are the connection's own until hello, then its
player's: one token bucket per player and process, shared by all of the
player's connections here. A bucket shared over processes would cost a Redis
round trip per message on the move path; instead the per-player connection
cap bounds what a player spread over processes can spend
(docs/operations.md §4).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Sequence

from ..config import Settings
from ..storage.health import Health, is_outage
from ..storage.sessions import PLAYER_CONNS_PREFIX, Sessions, address_group, player_conns_name
from ..tasks import stop_task
from .addresses import Network, in_networks
from .ratelimit import RateLimit

log = logging.getLogger("solrace.admission")

BATCH_S = 0.05  # closed connections are written at most this late
RENEW_SLICES = 10  # the periodic renewal writes this fraction of the names at a time...
RENEW_BATCH = 500  # ...in batches of at most this many names (a batch nobody waits for)


class SocketGate:
    """The TCP connections of this process, counted from accept to close (docs/operations.md §4).

    MAX_CONN_PER_ADDR is checked once a WebSocket is open, over all processes; until then a
    connection (a handshake in progress, a plain HTTP request) is a socket like any other.
    This counts every socket the moment it is accepted: at most `per_addr` per peer address
    (MAX_CONN_PER_ADDR + MAX_PENDING_PER_ADDR) and `total` in all (MAX_CONNECTIONS), so that
    neither one address nor everyone together can take the file descriptors Redis needs.
    Peers in `trusted` (the proxies) carry many clients each: only `total` bounds them, their
    clients' own limits apply once the request names them (X-Forwarded-For).
    """

    def __init__(
        self,
        per_addr: int,
        total: int,
        trusted: Sequence[Network],
        on_refused: Callable[[str, str, str], None] | None = None,
    ) -> None:
        self.per_addr = per_addr
        self.total = total
        self.trusted = trusted
        self.count = 0
        self.by_addr: dict[str, int] = {}
        #: Told of each socket refused: (address, which limit: "address" or "total", why in words).
        self.on_refused = on_refused

    def accept(self, addr: str) -> str | None:
        """A socket from `addr` was accepted: the name it is counted under ('' for a trusted
        proxy), to give to `release` when it closes; None: over a limit, close it unread."""
        if self.count >= self.total:
            self._refused(
                addr,
                "total",
                f"a connection from {addr}: this process holds its most connections ({self.total}: "
                "--max-connections, or what the open-files limit leaves)",
            )
            return None
        if self.trusted and in_networks(addr, self.trusted):
            self.count += 1
            return ""
        name = address_group(addr)
        n = self.by_addr.get(name, 0)
        if n >= self.per_addr:
            self._refused(
                addr,
                "address",
                f"too many connections from {addr} ({self.per_addr} on this process: "
                "MAX_CONN_PER_ADDR + --max-pending-per-addr)",
            )
            return None
        self.by_addr[name] = n + 1
        self.count += 1
        return name

    def _refused(self, addr: str, limit: str, why: str) -> None:
        if self.on_refused is not None:
            self.on_refused(addr, limit, why)

    def release(self, name: str) -> None:
        self.count -= 1
        if name:
            left = self.by_addr[name] - 1
            if left:
                self.by_addr[name] = left
            else:
                del self.by_addr[name]


class Admission:
    def __init__(self, settings: Settings, sessions: Sessions, health: Health) -> None:
        self.settings = settings
        self.sessions = sessions
        self.health = health
        self.per_addr: dict[str, int] = {}  # open connections here, per address
        self.player_conns: dict[str, int] = {}  # open connections here past hello, per player
        self.player_rates: dict[str, RateLimit] = {}
        self.others: dict[str, int] = {}  # name -> the other processes' count, as last read
        self.changed: set[str] = set()  # names whose count here was not written since it changed
        self.waiters: list[asyncio.Future[None]] = []  # connections waiting for the next batch
        self.writing: asyncio.Task[None] | None = None
        self.urgent = asyncio.Event()  # a connection waits for the batch: send it now
        self.heartbeat: asyncio.Task[None] | None = None
        self.stopped = False

    def start(self) -> None:
        self.heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())

    def stop(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()

    async def close(self) -> None:
        """Every connection is gone (the process stops): write the last counts now, then no more."""
        self.stop()
        await stop_task(self.writing)
        self.stopped = True
        names, self.changed = self.changed, set()
        if names:
            try:
                await self.sessions.conn_counts({n: self._count_here(n) for n in names})
            except Exception as exc:  # they expire with their lifetime anyway
                self._failed("could not count connections in Redis", exc)

    async def _heartbeat(self) -> None:
        # Every name is written again within `period` of the snapshot that lists it, and a name
        # that appears after a snapshot is written when it appears: no count goes unrenewed for
        # two periods, well within its lifetime of three.
        period = self.sessions.conn_ttl_ms / 3000
        while True:
            names = [*self.per_addr, *(player_conns_name(p) for p in self.player_conns)]
            for k in range(RENEW_SLICES):
                await asyncio.sleep(period / RENEW_SLICES)
                self.changed.update(names[k::RENEW_SLICES])
                self._write_soon()

    def _count_here(self, name: str) -> int:
        if name.startswith(PLAYER_CONNS_PREFIX):
            return self.player_conns.get(name[len(PLAYER_CONNS_PREFIX) :], 0)
        return self.per_addr.get(name, 0)

    def _write_soon(self, now: bool = False) -> None:
        """Start a batch (after BATCH_S unless `now`), unless one is being sent or waiting to be."""
        if self.writing is None and (self.changed or self.waiters) and not self.stopped:
            self.writing = asyncio.get_running_loop().create_task(self._write(0.0 if now else BATCH_S))

    async def _write(self, delay: float) -> None:
        """Write the changed counts, batch after batch, until nothing changed meanwhile."""
        try:
            if delay:
                await self._pause(delay)
            while self.changed or self.waiters:
                if self.waiters or len(self.changed) <= RENEW_BATCH:
                    names, self.changed = self.changed, set()
                else:  # a renewal nobody waits for: in slices, so that moves go between them
                    names = set(itertools.islice(self.changed, RENEW_BATCH))
                    self.changed -= names
                waiters, self.waiters = self.waiters, []
                counts = {n: self._count_here(n) for n in names}
                try:
                    others = await self.sessions.conn_counts(counts)
                except Exception as exc:
                    self._failed("could not count connections in Redis", exc)
                    others = {}
                for name in names:
                    if counts[name] and name in others:
                        self.others[name] = others[name]
                    else:  # nothing kept for names with no connection here; on failure the local counts decide
                        self.others.pop(name, None)
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
                if self.changed and not self.waiters:
                    await self._pause(BATCH_S)  # a later change waits its turn; a new name does not
        finally:
            self.writing = None
            for waiter in self.waiters:  # only if cancelled (shutdown): let nobody wait for ever
                if not waiter.done():
                    waiter.set_result(None)
            self.waiters.clear()

    async def _pause(self, delay: float) -> None:
        """Sleep `delay`, or less if a connection starts waiting for the batch."""
        if not self.waiters:
            self.urgent.clear()
            try:
                async with asyncio.timeout(delay):
                    await self.urgent.wait()
            except TimeoutError:
                pass

    async def _counted(self, name: str) -> int:
        """After the count of `name` here changed: the other processes' count, read by the next batch."""
        self.changed.add(name)
        if self.stopped:
            return 0  # the local counts alone decide
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        self.urgent.set()
        if self.writing is None:
            self._write_soon(now=True)
        await waiter
        return self.others.get(name, 0)

    def _failed(self, what: str, exc: Exception) -> None:
        if is_outage(exc):  # one log line per outage, not one per connection
            self.health.failed(exc)
        else:
            log.warning(what, exc_info=exc)

    # --- per address ------------------------------------------------------------------------------

    async def connect(self, addr: str) -> tuple[bool, bool]:
        """A new connection from `addr`: (admitted, counted); `disconnect` it in any case."""
        addr = address_group(addr)
        rank = self.per_addr.get(addr, 0) + 1
        self.per_addr[addr] = rank
        limit = self.settings.max_conn_per_addr
        if rank > limit:
            return False, False
        return rank + await self._counted(addr) <= limit, True

    async def disconnect(self, addr: str, counted: bool, player: str | None) -> None:
        """The connection from `addr` (past hello as `player`, if given) is gone."""
        addr = address_group(addr)
        left = self.per_addr.get(addr, 1) - 1
        if left:
            self.per_addr[addr] = left
        else:
            self.per_addr.pop(addr, None)
        self.changed.add(addr)
        if player is not None:
            self.changed.add(player_conns_name(player))
            left = self.player_conns.get(player, 1) - 1
            if left:
                self.player_conns[player] = left
            else:
                self.player_conns.pop(player, None)
                self.player_rates.pop(player, None)
        self._write_soon()  # nobody waits for it

    # --- per player -------------------------------------------------------------------------------

    async def player_joined(self, pid: str) -> tuple[RateLimit, bool]:
        """A connection said hello as `pid`: (the player's rate credits, admitted); `disconnect` says when it left."""
        rank = self.player_conns[pid] = self.player_conns.get(pid, 0) + 1
        rate = self.player_rates.get(pid)
        if rate is None:
            rate = self.player_rates[pid] = RateLimit(self.settings.rate, self.settings.burst)
        return rate, rank + await self._counted(player_conns_name(pid)) <= self.settings.max_conn_per_player
