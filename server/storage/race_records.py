"""Race records in Redis: load, compare-and-set commit, the public index, the timers."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from ..core import races as R
from .failover import NotReplicated
from .keys import (
    PUBLIC,
    TIMERS,
    away_key,
    log_key,
    player_key,
    race_channel,
    race_key,
    stream_key,
    valid_race_id,
    void_joins_key,
    void_key,
)
from .parts import StorePart
from .records import race_fields, race_from_load
from .scripts import COMMIT, LOAD, RESCHEDULE, SPECTATORS, Script, pipelined

# How long a race given up unstored (`load_race` with `void`) refuses its create commit, and
# a join given up (with `attempt`) its commit at least: far longer than a commit sent on a
# connection that failed can take to reach Redis (a client timeout is seconds; a TCP
# retransmission gives up within minutes), and one small key per failure costs next to nothing.
VOID_TTL_MS = 3_600_000
# How long after its failure such a commit may still reach Redis, at the very most: a TCP
# connection gives up retransmitting within about 15 minutes (Linux's tcp_retries2). A server
# that could not give a race or a join up (Redis could not be read) tries again until then
# (handlers/seating.py); the void mark outlives it.
LATE_WITHIN_S = 900.0


class Conflict(Exception):
    """The race changed between load and commit: reload and retry (or, for a creation, the
    race was given up: `load_race` with `void`)."""


class RaceRecords(StorePart):
    async def load_race(
        self, rid: str, *, void: bool = False, attempt: str = ""
    ) -> tuple[int, R.Race | None]:
        """(server time ms, the race or None). One round trip.

        `void`: a race not stored is given up in the same step, for VOID_TTL_MS: a create
        commit of it still on its way then stores nothing (commit.lua). For deciding that a
        failed creation made no race (handlers/seating.py); a retry uses a new race id.
        With `attempt` (a join's token, `commit`), a race stored has that join given up in
        the same step (load.lua): a commit of it still on its way stores nothing. For
        deciding that a failed join did not seat its player (handlers/lobby.py); a retry
        is a new attempt."""
        if not valid_race_id(rid):
            return await self.time_ms(), None
        if void and attempt:
            keys = [race_key(rid), void_key(rid), void_joins_key(rid)]
            args: list[Any] = [player_key(rid, ""), VOID_TTL_MS, attempt]
        elif void:
            keys, args = [race_key(rid), void_key(rid)], [player_key(rid, ""), VOID_TTL_MS]
        else:
            return race_from_load(await LOAD(self.redis, [race_key(rid)], [player_key(rid, "")]))
        if self.settings.redis_wait_replicas and not self.cluster:
            # A mark on the primary only would be lost with it, and a failed-over Redis then
            # takes the late commit the mark was there to refuse: a mark not replicated in time
            # is no answer (NotReplicated), and the caller asks again (handlers/seating.py).
            return race_from_load(await self._replicated(LOAD, keys, args, "a race or join given up"))
        return race_from_load(await LOAD(self.redis, keys, args))

    async def commit(
        self,
        old_ver: int,
        race: R.Race,
        events: bytes | list[bytes],
        *,
        players: dict[str, dict[str, Any]] | None = None,
        ttl_ms: int = 0,
        extra_live: int | None = None,
        attempt: str = "",
    ) -> int:
        """Write `race` if its stored version is still `old_ver`; publish `events`.

        The events must be encoded with versions old_ver + 1, old_ver + 2, ...
        (the last one = `race.ver`). Raises Conflict if the race changed, or if
        `attempt` (a join's token) was given up (`load_race` with `attempt`).
        Returns the new version.
        """
        if isinstance(events, bytes):
            events = [events]
        rid = race.race
        fields = race_fields(race)
        if extra_live is not None:
            fields["live"] = extra_live
        players = players or {}
        keys = [race_key(rid), stream_key(rid), void_key(rid), void_joins_key(rid)]
        keys += [player_key(rid, pid) for pid in players]
        if ttl_ms:
            # The TTL applies to every key of the race, the logs and player hashes included.
            keys += [player_key(rid, p.player) for p in race.players if p.player not in players]
            keys += [log_key(rid, p.player) for p in race.players]
        args: list[Any] = [
            old_ver,
            race_channel(rid),
            self.settings.stream_maxlen,
            ttl_ms,
            attempt,
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
        if self.settings.redis_wait_replicas and not self.cluster:
            reply = await self._replicated(COMMIT, keys, args, "a race commit")
        else:
            reply = await COMMIT(self.redis, keys, args)
        if reply[0] == b"void":
            if old_ver:
                raise Conflict(f"this join of race {rid} was given up before it arrived: nothing stored")
            raise Conflict(f"race {rid} was given up before its creation arrived: nothing stored")
        if reply[0] != b"ok":
            raise Conflict(f"race {rid} is at version {reply[1]}, not {old_ver}")
        return int(reply[1])

    async def _replicated(self, script: Script, keys: list[str], args: list[Any], what: str) -> Any:
        """`script`, then `WAIT` on the same connection (WAIT covers that connection's writes):
        with --redis-wait-replicas a race's changes (its creation, joins, start, end) and the
        marks that give a failed one up are answered only once replicated, like moves. Raises
        NotReplicated when fewer replicas confirm in time: the write may be on the primary only.
        A refused commit wrote nothing, so its WAIT's answer does not matter."""
        need, timeout_ms = self.settings.redis_wait_replicas, self.settings.redis_wait_timeout_ms

        def build(pipe: Any) -> None:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
            pipe.execute_command("WAIT", need, timeout_ms)

        reply, confirmed = await pipelined(self.redis, script, build)
        if isinstance(reply, BaseException):
            raise reply
        refused = script is COMMIT and reply[0] != b"ok"
        if not refused and not (isinstance(confirmed, int) and confirmed >= need):
            raise NotReplicated(
                f"WAIT: {confirmed} of {need} replica(s) confirmed {what} within {timeout_ms} ms"
            )
        return reply

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

            def build(pipe: Any) -> None:
                for rid in rids:
                    pipe.evalsha(LOAD.sha, 1, race_key(rid), player_key(rid, ""))

            replies = await pipelined(self.redis, LOAD, build)
        return [reply if isinstance(reply, BaseException) else race_from_load(reply)[1] for reply in replies]

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

    async def spectators(self, rid: str, delta: int) -> None:
        await SPECTATORS(self.redis, [race_key(rid)], [delta])

    async def public_races(self, limit: int) -> list[str]:
        ids = await self.redis.zrevrange(PUBLIC, 0, limit * 3)
        return [i.decode() for i in ids]

    async def index(self, rid: str, created: int | None) -> None:
        """Add (created given) or remove a race from the public index."""
        if created is None:
            await self.redis.zrem(PUBLIC, rid)
        else:
            await self.redis.zadd(PUBLIC, {rid: created})

    async def drop_gone_public(self, batch: int = 500) -> int:
        """Drop from the public index every race whose record is gone (expired): how many.

        A race leaves the index at its follow-ups (started and ended, its lobby emptied,
        released, or found expired at its timer's tick), and a `races` read drops the gone
        ones among the newest it reads. A process that died between two of those writes (an
        expired lobby's timer dropped, its listing not yet), or a write of them that failed,
        left a member no timer ticks and, once newer races are listed above it, no read
        reaches: it stayed for good. A race is listed only once its record is stored
        (handlers/lobby.py `seat_new_race`), so one whose record is missing is gone."""
        ids = [x.decode() if isinstance(x, bytes) else str(x) for x in await self.redis.zrange(PUBLIC, 0, -1)]
        dropped = 0
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            pipe = self.redis.pipeline(transaction=False)
            for rid in chunk:  # one key per command: the races live in different cluster slots
                pipe.exists(race_key(rid))
            gone = [rid for rid, n in zip(chunk, await pipe.execute()) if not n]
            if gone:
                dropped += int(await self.redis.zrem(PUBLIC, *gone))
        return dropped

    # --- the away clock of public lobbies (core/presence.py) ------------------------------

    async def away_since(self, rid: str, now: int, ttl_ms: int) -> int:
        """The lobby's away mark, set to `now` if it has none (it lives `ttl_ms`, as the lobby)."""
        key = away_key(rid)
        pipe = self.redis.pipeline(transaction=False)  # one key: the commands run in order
        pipe.set(key, now, nx=True, px=ttl_ms)
        pipe.get(key)
        stored = (await pipe.execute())[1]
        return now if stored is None else int(stored)

    async def clear_away(self, *rids: str) -> None:
        """These lobbies' people came back (a hello, a join): their away clocks start again."""
        if not rids:
            return
        pipe = self.redis.pipeline(transaction=False)
        for rid in rids:  # one key per command: the races live in different cluster slots
            pipe.delete(away_key(rid))
        await pipe.execute()

    # --- timers (the deadline sweeper) ---------------------------------------------------

    async def schedule(self, rid: str, at: int | None) -> None:
        if at is None:
            await self.redis.zrem(TIMERS, rid)
        else:
            await self.redis.zadd(TIMERS, {rid: at})

    async def schedule_ahead(self, rid: str, at: int) -> None:
        """Before a commit that needs a timer at `at`: keep the race's timer no later than that.

        A process that dies between a commit and its `schedule` then leaves the race a timer
        that is early (the tick finds nothing due and reschedules it), never none: a race
        counting down with no timer would never start.
        """
        await self.redis.zadd(TIMERS, {rid: at}, lt=True)

    async def schedule_sooner(self, rid: str, at: int) -> None:
        """Move the race's stored timer to `at` if that is earlier; add none (a race whose
        timer is gone has been followed up to its end by another process)."""
        await self.redis.zadd(TIMERS, {rid: at}, xx=True, lt=True)

    async def schedule_later(self, rid: str, at: int) -> None:
        """Move the race's stored timer to `at` if that is later; add none."""
        await self.redis.zadd(TIMERS, {rid: at}, xx=True, gt=True)

    async def reschedule(self, rid: str, now: int, at: int | None) -> None:
        """A tick that read the race at `now`: its timer to `at` (None: no timer), unless a
        timer later than `now`, and earlier than `at`, was set since (reschedule.lua)."""
        await RESCHEDULE(self.redis, [TIMERS], [rid, now, "" if at is None else at])

    async def schedule_if_none(self, rids: Collection[str], at: int) -> None:
        """A timer at `at` for each of these races that has none; a stored one stays as it is."""
        if rids:
            await self.redis.zadd(TIMERS, dict.fromkeys(rids, at), nx=True)

    async def scheduled_at(self, rid: str) -> int | None:
        """The race's stored timer (ms), or None."""
        at = await self.redis.zscore(TIMERS, rid)
        return None if at is None else int(at)

    async def due_races(self, now: int, limit: int = 100) -> list[str]:
        ids = await self.redis.zrangebyscore(TIMERS, "-inf", now, start=0, num=limit)
        return [i.decode() for i in ids]
