"""Who may connect: open connections per address and per player, and each player's rate credits.

MAX_CONN_PER_ADDR is checked against this process's count at once (no
Redis round trip for a flood from one address), then against the count over
all processes, kept in Redis (server/storage/sessions.py); so is
MAX_CONN_PER_PLAYER once hello has named the player. The counts of a process
expire unless it renews them (`_heartbeat`), so a process that dies takes its
counts with it. If Redis cannot be reached, the local counts alone decide.

Rate credits (RATE, BURST) are the connection's own until hello, then its
player's: one token bucket per player and process, shared by all of the
player's connections here. A bucket shared over processes would cost a Redis
round trip per message on the move path; instead the per-player connection
cap bounds what a player spread over processes can spend
(docs/operations.md §4).
"""

from __future__ import annotations

import asyncio
import logging

from ..config import Settings
from ..storage.health import Health, is_outage
from ..storage.sessions import Sessions
from .ratelimit import RateLimit

log = logging.getLogger("solrace.admission")


def player_key(pid: str) -> str:
    """The name a player's connection count has beside the addresses' counts."""
    return "player " + pid


class Admission:
    def __init__(self, settings: Settings, sessions: Sessions, health: Health) -> None:
        self.settings = settings
        self.sessions = sessions
        self.health = health
        self.per_addr: dict[str, int] = {}  # open connections here, per address
        self.player_conns: dict[str, int] = {}  # open connections here past hello, per player
        self.player_rates: dict[str, RateLimit] = {}
        self.heartbeat: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())

    def stop(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()

    async def _heartbeat(self) -> None:
        every = self.sessions.conn_ttl_ms / 3000
        while True:
            await asyncio.sleep(every)
            names = list(self.per_addr) + [player_key(p) for p in self.player_conns]
            try:
                await self.sessions.heartbeat(names)
            except Exception as exc:
                self._failed("could not renew the connection counts", exc)

    async def _count(self, key: str, delta: int) -> int:
        """Open connections of `key` over all processes after adding `delta`; 0 if Redis is out."""
        try:
            return await self.sessions.conn_count(key, delta)
        except Exception as exc:
            self._failed("could not count connections in Redis", exc)
            return 0

    def _failed(self, what: str, exc: Exception) -> None:
        if is_outage(exc):  # one log line per outage, not one per connection
            self.health.failed(exc)
        else:
            log.warning(what, exc_info=exc)

    # --- per address ------------------------------------------------------------------------------

    async def connect(self, addr: str) -> tuple[bool, bool]:
        """A new connection from `addr`: (admitted, counted in Redis); `disconnect` it in any case."""
        count = self.per_addr.get(addr, 0) + 1
        self.per_addr[addr] = count
        limit = self.settings.max_conn_per_addr
        if count > limit:
            return False, False
        return await self._count(addr, 1) <= limit, True

    async def disconnect(self, addr: str, counted: bool, player: str | None) -> None:
        """The connection from `addr` (past hello as `player`, if given) is gone."""
        left = self.per_addr.get(addr, 1) - 1
        if left:
            self.per_addr[addr] = left
        else:
            self.per_addr.pop(addr, None)
        gone = [addr] if counted else []
        if player is not None:
            gone.append(player_key(player))
            left = self.player_conns.get(player, 1) - 1
            if left:
                self.player_conns[player] = left
            else:
                self.player_conns.pop(player, None)
                self.player_rates.pop(player, None)
        if gone:
            try:
                await self.sessions.conns_closed(gone)  # one round trip for both counts
            except Exception as exc:
                self._failed("could not count connections in Redis", exc)

    # --- per player -------------------------------------------------------------------------------

    async def player_joined(self, pid: str) -> tuple[RateLimit, bool]:
        """A connection said hello as `pid`: (the player's rate credits, admitted); `disconnect` says when it left."""
        self.player_conns[pid] = self.player_conns.get(pid, 0) + 1
        rate = self.player_rates.get(pid)
        if rate is None:
            rate = self.player_rates[pid] = RateLimit(self.settings.rate, self.settings.burst)
        return rate, await self._count(player_key(pid), 1) <= self.settings.max_conn_per_player
