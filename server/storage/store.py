"""Every read and write of races, sessions and quick-match in Redis (docs/operations.md).

Redis is the truth; a server process keeps only caches. The key layout is in
``keys``, the scripts in ``scripts`` (``*.lua``), the record encodings in
``records`` and ``positions``, the move path in ``moves`` (``Store.moves``).
Lifetimes: a lobby expires after ``lobby_ttl_s`` without change; a started
race lives until its deadline plus a day; a finished race (seed, logs,
ranking) for ``finished_ttl_s``.

``Store`` holds the connections; its reads and writes are grouped by job in
``race_records`` (`RaceRecords`), ``player_games`` (`PlayerGames`),
``players`` (`Players`) and ``recent`` (`RecentRaces`), which it inherits.

API (all async but ``moves`` and ``subscriber``):
- races: `load_race`, `load_races`, `commit`, `load_player`, `move_logs`, `logs_since`,
  `events_since`, `public_races`, `index`, `spectators`, `race_counts`
- the move path: `moves` (a `MovePipe`: `play`, `finish`, `reack`, typed replies)
- the bus: `subscriber(on_message, on_reconnect)` (pub/sub), `publish_player`
- timers: `schedule`, `due_races`
- sessions (``sessions``: new, resume, kept at the first seat; per-address limits),
  players: `player_name`, `player_races`, `seat_ids`, `add_seat`, `remove_seat`; the seats
  counted against MAX_RACES_PER_PLAYER (seats.lua): `reserve_seat`, `settle_seats`, `release_seats`, `prune_seats`
- recent races: `note_recent`, `recent_races`, `accounts_among`, `account_names`
- quick-match: `quick_push`, `quick_release`, `quick_leave`, `quick_put_back` (an entry is held by the connections
  that queued it), `quick_take`, `quick_keep` (a process marks itself alive there), `quick_waiting`
- `time_ms`, `ping`
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import redis.asyncio as aioredis

from ..config import Settings
from .cluster import ClusterPipe, cold_client, is_cluster_url
from .failover import ReplicatedPipe, SentinelPrimary, is_sentinel_url
from .health import Health
from .moves import MovePipe
from .player_games import PlayerGame, PlayerGames, PlayerLoad
from .players import Players
from .pubsub import Subscriber
from .race_records import Conflict, RaceRecords
from .recent import RecentRaces
from .resp import Pipe, redact_url
from .scripts import COMMIT, LOAD, MOVE, QUICK, RECENT, SPECTATOR_LOGS
from .sessions import Sessions

log = logging.getLogger("solrace.redis")

__all__ = ["Conflict", "PlayerGame", "PlayerLoad", "Store"]


class Store(RaceRecords, PlayerGames, Players, RecentRaces):
    """One server process's access to Redis: the clients, and every read and write (in its parts)."""

    def __init__(self, url: str, settings: Settings) -> None:
        self.url = url
        self.settings = settings
        self.cluster = is_cluster_url(url)
        self.pipe: Pipe | ClusterPipe
        self.sentinel = SentinelPrimary(url) if is_sentinel_url(url) else None
        if self.sentinel is not None:
            # redis+sentinel://: the primary the sentinels name (server/storage/failover.py).
            self.redis = self.sentinel.cold_client(settings.redis_pool, settings.redis_timeout_s)
            self.pipe = Pipe(self.sentinel.url, settings.redis_timeout_s)
        elif self.cluster:
            # redis+cluster://: redis-py's cluster client and a slot-routed move pipe (server/storage/cluster.py).
            self.redis = cold_client(url, settings.redis_timeout_s)
            self.pipe = ClusterPipe(url, settings.redis_timeout_s)
        else:
            # Cold paths: redis-py. decode_responses off: positions and frames are bytes.
            # A blocking pool: a burst of cold requests (hundreds of hellos at once) waits
            # for a free connection instead of failing with "Too many connections".
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=settings.redis_pool, timeout=10, socket_timeout=settings.redis_timeout_s
            )
            self.redis = aioredis.Redis(connection_pool=pool, decode_responses=False)
            # Hot path: one pipelined connection for EVALSHA of moves.
            self.pipe = Pipe(url, settings.redis_timeout_s)
        self.moves = MovePipe(
            ReplicatedPipe(self.pipe, settings.redis_wait_replicas, settings.redis_wait_timeout_ms)
            if settings.redis_wait_replicas and isinstance(self.pipe, Pipe)
            else self.pipe,
            settings.stream_maxlen,
        )
        self.sessions = Sessions(
            self.redis,
            self.pipe,
            settings.session_ttl_s,
            settings.fresh_session_ttl_s,
            settings.new_sessions_per_min,
        )
        self.health = Health(self.redis, cluster=self.cluster)  # `/healthz`, one log line per outage
        self._fresh: asyncio.Future[None] | None = None  # the idle connections being closed after an outage
        self.health.replicas_wanted = settings.redis_wait_replicas
        # After an outage Redis may answer /healthz's check before the move pipe is back (its
        # reconnection backs off up to 1 s): moves would fail meanwhile.
        self.health.pipe_down = lambda: (
            None if self.pipe.ready else "the move pipeline is reconnecting to redis"
        )
        if isinstance(self.pipe, Pipe):
            self.pipe.on_reconnect = self._recovered

    def subscriber(
        self,
        on_message: Callable[[bytes, bytes], None],
        on_reconnect: Callable[[], None],
        on_subscribed: Callable[[bytes], None] | None = None,
    ) -> Subscriber:
        """The process's pub/sub connection (race and player channels, the daily's boards);
        `on_subscribed(channel)` once Redis confirms a subscription."""
        return Subscriber(self.bus_url, on_message, on_reconnect, on_subscribed)

    def redis_back(self) -> None:
        """The private redis-server is back: the outage ends now if the move pipe is connected,
        else when the pipe reconnects."""
        if isinstance(self.pipe, Pipe) and self.pipe.ready:
            self._recovered()

    def _recovered(self) -> None:
        """Redis answers again. The cold client's idle connections went to the Redis that is
        gone: each would fail the next request on it ("Connection closed by server"), an
        outage after the outage. Close them first (the pool reopens on demand), then end it."""
        pool = getattr(self.redis, "connection_pool", None)
        if pool is None:  # a cluster client keeps a pool per node and finds dead ones itself
            self.health.recovered()
            return

        async def fresh() -> None:
            try:
                await pool.disconnect(inuse_connections=False)
            except Exception:  # closing a dead socket may fail: it is closed all the same
                log.debug("closing the idle redis connections failed", exc_info=True)
            self.health.recovered()

        self._fresh = asyncio.ensure_future(fresh())  # held: a task nobody keeps may be collected

    def moves_pending(self) -> int:
        """Move calls sent and not answered yet (a graceful stop waits for them)."""
        return self.pipe.pending()

    @property
    def bus_url(self) -> str | Callable[[], str]:
        """Where the pub/sub connection goes (in a cluster: any node, rotating on reconnect)."""
        if self.sentinel is not None:
            return self.sentinel.url
        return self.pipe.pubsub_url if isinstance(self.pipe, ClusterPipe) else self.url

    async def start(self) -> None:
        if self.sentinel is not None and await self.sentinel.lookup() is None:
            raise ConnectionError(f"no sentinel of {redact_url(self.url)} names a primary")
        await self.redis.ping()
        for script in (MOVE, COMMIT, LOAD, QUICK, SPECTATOR_LOGS, RECENT):
            await self.redis.script_load(script.source)
        await self.pipe.connect()

    async def close(self) -> None:
        self.health.close()
        self.pipe.close()
        await self.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False
