"""Every read and write of races, sessions and quick-match in Redis (docs/operations.md).

Redis is the truth; a server process keeps only caches. The key layout is in
``keys``, the scripts in ``scripts`` (``*.lua``), the record encodings in
``records`` and ``positions``, the move path in ``moves`` (``Store.moves``).
Lifetimes: a lobby expires after ``lobby_ttl_s`` without change; a started
race lives until its deadline plus a day; a finished race (seed, logs,
ranking) for ``finished_ttl_s``.

API (all async but ``moves`` and ``subscriber``):
- races: `load_race`, `load_races`, `commit`, `load_player`, `move_logs`, `positions`,
  `events_since`, `public_races`, `index`, `spectators`, `race_counts`
- the move path: `moves` (a `MovePipe`: `play`, `finish`, `reack`, typed replies)
- the bus: `subscriber(on_message, on_reconnect)` (pub/sub), `publish_player`
- timers: `schedule`, `due_races`
- sessions (``sessions``: new, resume, kept at the first seat; per-address limits),
  players: `player_name`, `player_races`, `add_seat`, `remove_seat`
- quick-match: `quick_push`, `quick_remove`
- `time_ms`, `ping`
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from ..config import Settings
from ..core import races as R
from .cluster import ClusterPipe, cold_client, is_cluster_url
from .failover import ReplicatedPipe, SentinelPrimary, is_sentinel_url
from .health import Health
from .keys import (
    PUBLIC,
    TIMERS,
    log_key,
    player_channel,
    player_key,
    profile_key,
    quick_key,
    race_channel,
    race_key,
    seats_key,
    stream_key,
    valid_race_id,
)
from .moves import MovePipe
from .positions import encode_position, replay
from .records import race_fields, race_from_load, text_or_none
from .resp import Pipe, Subscriber
from .scripts import COMMIT, LOAD, MOVE, POSITIONS, QUICK
from .sessions import Sessions

log = logging.getLogger("solrace.store")


@dataclass(slots=True)
class PlayerGame:
    """A player's stored game in a started race: the player hash and the log after its snapshot."""

    n: int  # moves made
    home: int  # cards home
    status: str
    pos: bytes  # compact position snapshot (positions.encode_position) ...
    since: list[bytes]  # ... and the move log entries after it
    pn: int | None  # the move count of the snapshot (None: stored before snapshots, `pos` is at `n`)
    last: str  # the last move applied

    def game(self) -> Any:
        return replay(self.pos, self.since)


@dataclass(slots=True)
class PlayerLoad:
    """What the move cache needs to (re)load a player: the race's status, the seat, the game."""

    status: str | None  # None: no such race
    seated: bool
    game: PlayerGame | None  # None before the start


def _player_game(h: dict[bytes, bytes], since: list[bytes]) -> PlayerGame | None:
    """The hash and the log entries after its snapshot (`pn`); the log is the truth: a move
    that landed between the two reads is in `since` and not yet in the hash's fields."""
    if not h:
        return None
    n, home, last = int(h[b"n"]), int(h.get(b"home") or 0), (h.get(b"last") or b"").decode()
    if since:
        n = int(h.get(b"pn") or 0) + len(since)
        _at, home_s, move = since[-1].split(b" ", 2)
        home, last = int(home_s), move.decode()
    pn = int(h[b"pn"]) if b"pn" in h else None
    return PlayerGame(
        n=n, home=home, status=h[b"status"].decode(), pos=h[b"pos"], since=since, pn=pn, last=last
    )


class Conflict(Exception):
    """The race changed between load and commit: reload and retry."""


class Store:
    def __init__(self, url: str, settings: Settings) -> None:
        self.url = url
        self.settings = settings
        self.cluster = is_cluster_url(url)
        self.pipe: Pipe | ClusterPipe
        self.sentinel = SentinelPrimary(url) if is_sentinel_url(url) else None
        if self.sentinel is not None:
            # redis+sentinel://: the primary the sentinels name (server/storage/failover.py).
            self.redis = self.sentinel.cold_client(settings.redis_pool)
            self.pipe = Pipe(self.sentinel.url)
        elif self.cluster:
            # redis+cluster://: redis-py's cluster client and a slot-routed move pipe (server/storage/cluster.py).
            self.redis = cold_client(url)
            self.pipe = ClusterPipe(url)
        else:
            # Cold paths: redis-py. decode_responses off: positions and frames are bytes.
            # A blocking pool: a burst of cold requests (hundreds of hellos at once) waits
            # for a free connection instead of failing with "Too many connections".
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=settings.redis_pool, timeout=10
            )
            self.redis = aioredis.Redis(connection_pool=pool, decode_responses=False)
            # Hot path: one pipelined connection for EVALSHA of moves.
            self.pipe = Pipe(url)
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
        self.health.replicas_wanted = settings.redis_wait_replicas
        if isinstance(self.pipe, Pipe):
            self.pipe.on_reconnect = self.health.recovered

    def subscriber(
        self, on_message: Callable[[bytes, bytes], None], on_reconnect: Callable[[], None]
    ) -> Subscriber:
        """The process's pub/sub connection (race and player channels, the daily's boards)."""
        return Subscriber(self.bus_url, on_message, on_reconnect)

    def redis_back(self) -> None:
        """The private redis-server is back: the outage ends now if the move pipe is connected,
        else when the pipe reconnects."""
        if isinstance(self.pipe, Pipe) and self.pipe.ready:
            self.health.recovered()

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
            raise ConnectionError(f"no sentinel of {self.url} names a primary")
        await self.redis.ping()
        for script in (MOVE, COMMIT, LOAD, QUICK, POSITIONS):
            await self.redis.script_load(script.source)
        await self.pipe.connect()

    async def close(self) -> None:
        self.pipe.close()
        await self.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def time_ms(self) -> int:
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000

    # --- races ------------------------------------------------------------------------

    async def load_race(self, rid: str) -> tuple[int, R.Race | None]:
        """(server time ms, the race or None). One round trip."""
        if not valid_race_id(rid):
            return await self.time_ms(), None
        reply = await LOAD(self.redis, [race_key(rid)], [player_key(rid, "")])
        return race_from_load(reply)

    async def commit(
        self,
        old_ver: int,
        race: R.Race,
        events: bytes | list[bytes],
        *,
        players: dict[str, dict[str, Any]] | None = None,
        ttl_ms: int = 0,
        extra_live: int | None = None,
    ) -> int:
        """Write `race` if its stored version is still `old_ver`; publish `events`.

        The events must be encoded with versions old_ver + 1, old_ver + 2, ...
        (the last one = `race.ver`). Raises Conflict if the race changed.
        Returns the new version.
        """
        if isinstance(events, bytes):
            events = [events]
        rid = race.race
        fields = race_fields(race)
        if extra_live is not None:
            fields["live"] = extra_live
        players = players or {}
        keys = [race_key(rid), stream_key(rid)] + [player_key(rid, pid) for pid in players]
        if ttl_ms:
            # The TTL applies to every key of the race, the logs and player hashes included.
            keys += [player_key(rid, p.player) for p in race.players if p.player not in players]
            keys += [log_key(rid, p.player) for p in race.players]
        args: list[Any] = [
            old_ver,
            race_channel(rid),
            self.settings.stream_maxlen,
            ttl_ms,
            len(events),
            *events,
            len(fields),
        ]
        for k, v in fields.items():
            args += [k, v]
        args.append(len(players))
        for pf in players.values():
            args.append(len(pf))
            for k, v in pf.items():
                args += [k, v]
        reply = await COMMIT(self.redis, keys, args)
        if reply[0] != b"ok":
            raise Conflict(f"race {rid} is at version {reply[1]}, not {old_ver}")
        return int(reply[1])

    async def load_races(self, rids: list[str]) -> list[R.Race | None | BaseException]:
        """Several races at once (the race list): one pipeline, or one call per race in a cluster.

        Each item is the race, None (no such race) or the exception of its read.
        """
        if self.cluster:
            # redis-py refuses EVALSHA in cluster pipelines; the races live on different nodes anyway.
            replies = await asyncio.gather(
                *(LOAD(self.redis, [race_key(rid)], [player_key(rid, "")]) for rid in rids),
                return_exceptions=True,
            )
        else:
            for _attempt in range(2):
                pipe = self.redis.pipeline(transaction=False)
                for rid in rids:
                    pipe.evalsha(LOAD.sha, 1, race_key(rid), player_key(rid, ""))
                replies = await pipe.execute(raise_on_error=False)
                if not any(isinstance(r, NoScriptError) for r in replies):
                    break
                await self.redis.script_load(LOAD.source)  # Redis restarted: reload, then once more
        return [reply if isinstance(reply, BaseException) else race_from_load(reply)[1] for reply in replies]

    async def load_player(self, rid: str, pid: str) -> PlayerLoad:
        """The race's status, whether `pid` sits in it, and their stored game (the move cache loader)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(race_key(rid), "status", "players")
        pipe.hgetall(player_key(rid, pid))
        (status, players), player = await pipe.execute()
        since = await self._since_snapshot(rid, pid, player)
        return PlayerLoad(
            status=text_or_none(status),
            seated=pid.encode() in (players or b""),
            game=_player_game(player, since),
        )

    async def _since_snapshot(self, rid: str, pid: str, h: dict[bytes, bytes]) -> list[bytes]:
        """The move log entries after the position snapshot of player hash `h`."""
        if not h or b"pos" not in h or b"pn" not in h:
            return []  # (a game stored before snapshots: its `pos` is at `n`, nothing to replay)
        entries: list[bytes] = await self.redis.lrange(log_key(rid, pid), int(h.get(b"pn") or 0), -1)
        return entries

    async def race_counts(self) -> dict[str, int]:
        """Live races by status, counted cluster-wide from the public index and the timers."""
        ids = set(await self.redis.zrange(TIMERS, 0, -1)) | set(await self.redis.zrange(PUBLIC, 0, -1))
        pipe = self.redis.pipeline(transaction=False)
        for rid in ids:
            pipe.hget(race_key(rid.decode()), "status")
        counts: dict[str, int] = {}
        for status in await pipe.execute():
            if status:
                counts[status.decode()] = counts.get(status.decode(), 0) + 1
        return counts

    async def move_logs(self, race: R.Race) -> dict[str, list[tuple[int, int, str]]]:
        """Every player's move log as (at, home, move), oldest first."""
        pipe = self.redis.pipeline(transaction=False)
        for p in race.players:
            pipe.lrange(log_key(race.race, p.player), 0, -1)
        out = {}
        for p, entries in zip(race.players, await pipe.execute()):
            rows = []
            for e in entries:
                at, home, move = e.decode().split(" ", 2)
                rows.append((int(at), int(home), move))
            out[p.player] = rows
        return out

    async def positions(self, rid: str, pids: list[str]) -> tuple[int, list[tuple[int, bytes | None]]]:
        """The server time just after reading them, and (n, compact position) of each
        player (spectator boards; see decode_position), in one atomic call: each stored
        snapshot brought up to date with the log entries after it."""
        if not pids:
            return await self.time_ms(), []
        keys = [player_key(rid, pid) for pid in pids] + [log_key(rid, pid) for pid in pids]
        reply = await POSITIONS(self.redis, keys, [])
        out: list[tuple[int, bytes | None]] = []
        for i in range(1, len(reply), 4):
            n, pos, pn, since = reply[i : i + 4]
            if pos is None or pn is None:  # (a game stored before snapshots: its pos is at n)
                out.append((int(n or 0), pos))
            else:
                out.append((int(pn) + len(since), encode_position(replay(pos, since)) if since else pos))
        return int(reply[0]), out

    async def events_since(self, rid: str, since: int, limit: int | None = None) -> list[bytes] | None:
        """Frames of the race events after version `since`; None if the stream lost some, or over `limit`."""
        count = None if limit is None else limit + 1
        entries = await self.redis.xrange(stream_key(rid), f"{since + 1}-0", "+", count)
        if limit is not None and len(entries) > limit:
            return None
        if entries:
            first = int(entries[0][0].split(b"-")[0])
            if first != since + 1:
                return None
        else:
            # Nothing after `since`: fine if the client is up to date.
            ver = await self.redis.hget(race_key(rid), "ver")
            if ver is not None and int(ver) > since:
                return None
        return [fields[b"m"] for _id, fields in entries]

    async def spectators(self, rid: str, delta: int) -> None:
        await self.redis.hincrby(race_key(rid), "spectators", delta)

    async def public_races(self, limit: int) -> list[str]:
        ids = await self.redis.zrevrange(PUBLIC, 0, limit * 3)
        return [i.decode() for i in ids]

    async def index(self, rid: str, created: int | None) -> None:
        """Add (created given) or remove a race from the public index."""
        if created is None:
            await self.redis.zrem(PUBLIC, rid)
        else:
            await self.redis.zadd(PUBLIC, {rid: created})

    # --- timers (the deadline sweeper) ---------------------------------------------------

    async def schedule(self, rid: str, at: int | None) -> None:
        if at is None:
            await self.redis.zrem(TIMERS, rid)
        else:
            await self.redis.zadd(TIMERS, {rid: at})

    async def due_races(self, now: int, limit: int = 100) -> list[str]:
        ids = await self.redis.zrangebyscore(TIMERS, "-inf", now, start=0, num=limit)
        return [i.decode() for i in ids]

    # --- sessions and players ---------------------------------------------------------------

    async def touch_player(self, pid: str, name: str) -> None:
        """An account's hello: its display name, and its records live on like a resumed guest's."""
        ttl = self.settings.session_ttl_s
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(profile_key(pid), "name", name)
        pipe.expire(profile_key(pid), ttl)
        pipe.expire(seats_key(pid), ttl)
        await pipe.execute()

    async def player_name(self, pid: str) -> str:
        return text_or_none(await self.redis.hget(profile_key(pid), "name")) or "player"

    async def player_races(self, pid: str) -> list[str]:
        """Races where the player holds a seat and which are not finished (prunes the rest)."""
        ids = [i.decode() for i in await self.redis.smembers(seats_key(pid))]
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for rid in ids:
            pipe.hmget(race_key(rid), "status", "players")
        live, gone = [], []
        for rid, (status, players) in zip(ids, await pipe.execute()):
            if status is None or status == b"finished" or pid.encode() not in (players or b""):
                gone.append(rid)
            else:
                live.append(rid)
        if gone:
            await self.redis.srem(seats_key(pid), *gone)
        return sorted(live)

    async def add_seat(self, pid: str, rid: str) -> None:
        """Seat `pid` in `rid`; its connections on every process learn it (a `seated` notice)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(seats_key(pid), rid)
        pipe.expire(seats_key(pid), self.settings.session_ttl_s)
        await pipe.execute()
        await self.redis.publish(player_channel(pid), msgspec.msgpack.encode({"t": "seated", "race": rid}))
        await self.sessions.keep(pid)

    async def remove_seat(self, pid: str, rid: str) -> None:
        await self.redis.srem(seats_key(pid), rid)

    async def publish_player(self, pid: str, frame: bytes) -> None:
        await self.redis.publish(player_channel(pid), frame)

    # --- quick-match -------------------------------------------------------------------------

    async def quick_push(self, game: str, seats: int, pid: str) -> list[str]:
        reply = await QUICK(self.redis, [quick_key(game, seats)], [pid, seats, 3600])
        return [x.decode() for x in reply]

    async def quick_remove(self, game: str, seats: int, pid: str) -> None:
        await self.redis.lrem(quick_key(game, seats), 0, pid)
