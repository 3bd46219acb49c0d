"""Can Redis take writes (`/healthz`), and one log line per outage instead of one per failed request.

- `Health.check()`: None when Redis answers and accepts writes, else why not:
  the private redis-server is down (its supervisor says so), the move pipe is
  still reconnecting (Redis answers the check, but moves would fail), Redis
  does not answer, or Redis refuses writes because its last AOF write failed (with
  `appendfsync everysec` or `no` a full disk leaves Redis up but refusing
  every write with `MISCONF`) or because it is at its `maxmemory` (with the
  `noeviction` policy every write is refused with `OOM` until keys expire or
  are deleted).
  With `--redis-wait-replicas N`, also when fewer than N replicas are
  connected (moves would fail after the WAIT timeout).
- `Health.failed(exc)`: a request failed because Redis is unreachable or
  refuses writes (`is_outage`). The first failure of an outage logs one line;
  the next ones are only counted, until `recovered()` (the move pipe's
  connection is back, or the private redis-server is) logs how many failed,
  or until no failure came for `QUIET_S`, after which a failure starts a new
  outage. A Redis that refuses writes (OOM, MISCONF) keeps its connections:
  nothing reconnects to say it is over, so a watcher checks it every
  `REFUSAL_RECHECK_S` and calls `recovered()` once it takes writes again and
  none has been refused for `RECENT_REFUSAL_S`; until then `check()` says
  so, even when the memory counted at the probe has dipped under the limit.
- `OutageLog`: the same rule for a component that logs its own failures (a
  connection, a worker's loop): the first failure of an outage is worth a
  WARNING, the next ones until `QUIET_S` pass without a failure only DEBUG.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from hiredis import ReplyError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("solrace.redis")

# What an unreachable Redis raises (an outage, not a fault: worth one log line, not a trace).
OUTAGE = (ConnectionError, OSError, RedisConnectionError, RedisTimeoutError)

# Error replies of a Redis that is there but cannot take the request now.
# READONLY: a primary demoted to a replica by a failover, still reached before reconnecting.
# OOM: at its maxmemory with noeviction (docs/operations.md §13), writes are refused.
_UNAVAILABLE_REPLIES = ("MISCONF", "LOADING", "READONLY", "OOM")

QUIET_S = 60.0
#: A write refused this recently (OOM, MISCONF) makes `check()` fail, whatever Redis says now.
RECENT_REFUSAL_S = 5.0
#: How often a refusal outage is checked for its end.
REFUSAL_RECHECK_S = 1.0
#: The refusals that leave the connection up (nothing reconnects when they end).
_REFUSALS_WATCHED = {
    "OOM": "it is at its maxmemory",
    "MISCONF": "its last append-only file write failed (disk full?)",
}


def is_outage(exc: BaseException) -> bool:
    """Did this fail because Redis is unreachable, loading, or refusing writes (not a bug of ours)?"""
    return isinstance(exc, OUTAGE) or refusal(exc) is not None


def refusal(exc: BaseException) -> str | None:
    """The code of an error reply of a Redis that cannot take the request now (MISCONF, LOADING,
    READONLY, OOM), wrapped or not; None for any other exception."""
    if not isinstance(exc, ReplyError | ResponseError):
        return None
    # redis-py takes the code off the replies it has a class for.
    if isinstance(exc, OutOfMemoryError):
        return "OOM"
    if isinstance(exc, ReadOnlyError):
        return "READONLY"
    text = str(exc)
    # Inside a script the refusal comes wrapped: "ERR Error running script (...): ... -MISCONF ...",
    # inside a pipeline quoted: "Command # 1 (...) of pipeline caused error: ('MISCONF ...',)".
    for code in _UNAVAILABLE_REPLIES:
        if text.startswith(code + " ") or f"-{code} " in text or f"('{code} " in text:
            return code
    return None


def at_maxmemory(memory: dict[str, Any]) -> bool:
    """Whether a Redis (its INFO memory) refuses writes for its maxmemory: what it counts, its
    used memory less its replication and AOF buffers, is over the limit (Redis' own test)."""
    limit = int(memory.get("maxmemory", 0) or 0)
    if not limit:
        return False
    used = int(memory.get("used_memory", 0)) - int(memory.get("mem_not_counted_for_evict", 0))
    return used > limit


class Health:
    def __init__(self, redis: Any, *, cluster: bool) -> None:
        self.redis = redis  # the cold-path client (redis-py)
        self.cluster = cluster
        # Set by the app when it supervises a private redis-server: why it is down, or None.
        self.process_down: Callable[[], str | None] = lambda: None
        # Set by the store: why the move pipe cannot take moves now, or None.
        self.pipe_down: Callable[[], str | None] = lambda: None
        self.replicas_wanted = 0  # --redis-wait-replicas: fewer connected replicas is a 503
        self.failures = 0  # requests failed in the current outage
        self.first_failure: float | None = None
        self.last_failure = 0.0
        self.refused: str | None = None  # the refusal of the current outage (OOM, MISCONF), if any
        self._watcher: asyncio.Task[None] | None = None

    async def check(self) -> str | None:
        down = self.process_down() or self.pipe_down()
        if down is not None:
            return down
        if self.refused is not None:
            ago = time.monotonic() - self.last_failure
            if ago < RECENT_REFUSAL_S:
                why = _REFUSALS_WATCHED[self.refused]
                return f"redis refuses writes: {why} (a write was refused {ago:.1f} s ago: {self.refused})"
        try:
            if self.cluster:
                # Every node's persistence is the nodes' own business: reachable is what we can tell.
                return None if await self.redis.ping() else "redis unreachable"
            info = await self.redis.info("persistence")
        except Exception:
            return "redis unreachable"
        if info.get("aof_enabled") and info.get("aof_last_write_status", "ok") != "ok":
            return "redis refuses writes: its last append-only file write failed (disk full?)"
        try:
            memory = await self.redis.info("memory")
        except Exception:
            return "redis unreachable"
        if at_maxmemory(memory):
            return (
                f"redis refuses writes: it is at its maxmemory ({int(memory['maxmemory']) >> 20} MiB, "
                f"policy {memory.get('maxmemory_policy', '?')})"
            )
        if self.replicas_wanted:
            try:
                replicas = int((await self.redis.info("replication")).get("connected_slaves", 0))
            except Exception:
                return "redis unreachable"
            if replicas < self.replicas_wanted:
                return f"redis has {replicas} of the {self.replicas_wanted} replicas moves wait for"
        return None

    def failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        if self.first_failure is None or now - self.last_failure > QUIET_S:
            self.first_failure = now
            self.failures = 0
            if refusal(exc) == "OOM":
                log.warning(
                    "Redis is at its maxmemory and refuses writes: requests that write fail with "
                    "`internal` until keys expire or are deleted, or maxmemory is raised (the first: "
                    "%s; the next ones are counted, not logged)",
                    exc,
                )
            else:
                log.warning(
                    "Redis unavailable, requests fail with `internal` until it is back "
                    "(the first: %s; the next ones are counted, not logged)",
                    exc,
                )
        self.failures += 1
        self.last_failure = now
        code = refusal(exc)
        if code in _REFUSALS_WATCHED:
            self.refused = code
            if self._watcher is None or self._watcher.done():
                try:
                    self._watcher = asyncio.get_running_loop().create_task(self._watch_refusal())
                except RuntimeError:  # no event loop (a test calling this directly)
                    pass

    async def _watch_refusal(self) -> None:
        """End a refusal outage once Redis takes writes again (module doc)."""
        while self.refused is not None and self.first_failure is not None:
            await asyncio.sleep(REFUSAL_RECHECK_S)
            if time.monotonic() - self.last_failure < RECENT_REFUSAL_S:
                continue
            if await self.check() is None:
                self.recovered()
                return

    def close(self) -> None:
        """Stop watching a refusal outage (the store is closing)."""
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None

    def recovered(self) -> None:
        # A connection back to a redis-server that its supervisor is still probing (it may die
        # again at its first write) does not end the outage; the supervisor's "back" does.
        if self.first_failure is None or self.process_down() is not None:
            return
        log.warning(
            "Redis available again: %d request%s failed over %.1f s",
            self.failures,
            "" if self.failures == 1 else "s",
            self.last_failure - self.first_failure,
        )
        self.first_failure = None
        self.failures = 0
        self.refused = None


class OutageLog:
    """How loud a component's Redis failure is: WARNING for the first of an outage, DEBUG for
    the next ones. An outage lasts until `quiet_s` pass without a failure, so a redis-server
    that comes up for a moment and goes down again is still the same outage."""

    def __init__(self, quiet_s: float = QUIET_S) -> None:
        self.quiet_s = quiet_s
        self.last_failure: float | None = None

    def level(self) -> int:
        """Call on every failure: the level to log it at."""
        now = time.monotonic()
        first = self.last_failure is None or now - self.last_failure > self.quiet_s
        self.last_failure = now
        return logging.WARNING if first else logging.DEBUG
