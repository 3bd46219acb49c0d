"""Keeps the private redis-server (`EmbeddedRedis`) running: restarts it with backoff whenever
it exits, and says whether it is up (`/healthz`); an outage logs one line when it starts and one
when it ends (docs/operations.md §7)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
import time
from collections.abc import Callable
from typing import Any

from .data_folder import MIN_FREE_BYTES, free_bytes
from .embedded_redis import EmbeddedRedis, replies

log = logging.getLogger("solrace.redis")


async def end_start(redis: EmbeddedRedis, starting: asyncio.Future[Any]) -> None:
    """End a start of `redis` under way in a thread (`starting`, ended once it is done): one
    loading a large AOF may take minutes, so its child is stopped rather than waited for, and
    its start then fails. Again until the start ends: its child may be spawned just after a
    stop. The supervisor's stop ends a restart so, the server's stop the first start."""
    while not starting.done():
        await asyncio.to_thread(redis.stop)
        await asyncio.wait([starting], timeout=0.1)


class Supervisor:
    """Keeps an `EmbeddedRedis` running: restarts it, with backoff, whenever it exits.

    `down()` says why it is down (None while it is up): from the moment the
    process is found gone until a restarted one has accepted a write. A
    write, not a PING: after a full disk a restarted redis-server loads its
    AOF and answers PING, then exits at its first write while the disk is
    still full; it is back only once it can persist again. The probe write
    sets one small key (`PROBE_KEY`).

    An outage logs one line when it starts (the exit status, the last line
    redis-server logged, the space left in the data folder) and one when it
    ends (how long, how many restarts). A failed restart is a WARNING with its
    reason the first time, when the reason changes, and otherwise at most every
    `REPEAT_S` (DEBUG between): a crash loop is seen without flooding the log.
    The backoff (`backoff_min_s` doubling to `backoff_max_s`) bounds the cost
    of a crash loop, e.g. while the disk stays full.

    No restart is tried while the data folder has less than `min_free_bytes`
    free: on a nearly full disk the probe's few bytes fit while the next
    moves do not, and the outage would end and start again with every
    restart. It says so once per outage.
    """

    PROBE_KEY = "solrace:probe"
    REPEAT_S = 60.0  # how often the same failure of a restart is said again at WARNING
    MIN_FREE_BYTES = MIN_FREE_BYTES

    def __init__(
        self,
        redis: EmbeddedRedis,
        *,
        poll_s: float = 0.1,
        backoff_min_s: float = 0.1,
        backoff_max_s: float = 5.0,
        min_free_bytes: int = MIN_FREE_BYTES,
    ) -> None:
        self.redis = redis
        self.min_free_bytes = min_free_bytes
        self.poll_s = poll_s
        self.backoff_min_s = backoff_min_s
        self.backoff_max_s = backoff_max_s
        self.outage: str | None = None  # why it is down, while it is
        self.on_back: Callable[[], None] | None = None  # called when it is back after an outage
        self._task: asyncio.Task[None] | None = None
        self._restarting: asyncio.Future[str | None] | None = None

    def down(self) -> str | None:
        return self.outage

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop supervising (before stopping the process), ending a restart under way: one
        loading a large AOF may take minutes, so its child is stopped rather than waited for."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._restarting is not None:
            await end_start(self.redis, self._restarting)

    async def _run(self) -> None:
        while True:
            status = self.redis.exited()
            if status is None:
                await asyncio.sleep(self.poll_s)
                continue
            await self._restore(status)

    async def _restore(self, status: int) -> None:
        started = time.monotonic()
        how = f"killed by signal {-status}" if status < 0 else f"exited with status {status}"
        self.outage = f"private redis-server down ({how})"
        # Its last lines may still be in the pipe: read to their end (off the event loop).
        last_line = await asyncio.to_thread(self.redis.last_log_line)
        log.warning(
            "private redis-server %s (its log: %r; %s); restarting it, requests fail meanwhile",
            how,
            last_line,
            self._space_left(),
        )
        delay = self.backoff_min_s
        attempts = 0
        said_space = False
        said_failure: tuple[str, float] | None = None  # the last failure said at WARNING, and when
        while True:
            await asyncio.sleep(delay)
            free = self._free_bytes()
            if free is not None and free < self.min_free_bytes:
                if not said_space:
                    said_space = True
                    log.warning(
                        "the data folder %s has %s bytes free: the private redis-server is "
                        "started again once it has %s",
                        self.redis.data_dir,
                        f"{free:,}",
                        f"{self.min_free_bytes:,}",
                    )
                self.outage = f"private redis-server down ({how}; waiting for disk space)"
                delay = min(delay * 2, self.backoff_max_s)
                continue
            attempts += 1
            self._restarting = asyncio.ensure_future(asyncio.to_thread(self._restart))
            failure = await asyncio.shield(self._restarting)
            if failure is None:
                break
            now = time.monotonic()
            key = re.sub(r"\d+", "N", failure)  # the same failure, whatever its numbers
            if said_failure is None or said_failure[0] != key or now - said_failure[1] >= self.REPEAT_S:
                level = logging.WARNING
                said_failure = (key, now)
            else:
                level = logging.DEBUG
            log.log(
                level,
                "private redis-server restart %d failed (%s); next in %.1f s",
                attempts,
                failure,
                delay,
            )
            delay = min(delay * 2, self.backoff_max_s)
        self.outage = None
        log.warning(
            "private redis-server is back after %.1f s (%d restart%s)",
            time.monotonic() - started,
            attempts,
            "" if attempts == 1 else "s",
        )
        if self.on_back is not None:
            self.on_back()

    def _restart(self) -> str | None:
        """Start the process again on the same port and data; None once it accepted a write,
        else why not."""
        self.redis.stop()  # reaps the exited process (or stops one that failed its probe)
        try:
            self.redis.start()
        except (RuntimeError, OSError) as exc:  # it did not come up, or could not even be spawned
            return str(exc)
        if self._probe():
            self.redis.report_advice()
            return None
        self.redis.stop()
        return "it started but refused the probe write"

    def _probe(self) -> bool:
        command = b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
            len(self.PROBE_KEY),
            self.PROBE_KEY.encode(),
            len(str(os.getpid())),
            str(os.getpid()).encode(),
        )
        try:
            with socket.create_connection((self.redis.host, self.redis.port), timeout=5.0) as s:
                s.sendall(self.redis.auth_command() + command)
                reply = replies(s, 2 if self.redis.password else 1)
        except OSError:
            return False
        # OOM: it is at its maxmemory, which no restart changes; it persists what it accepts
        # (/healthz says it refuses writes until keys expire or are deleted).
        last = reply.split(b"\r\n")[-2:-1]  # the SET's reply (after AUTH's), without its CRLF
        return last == [b"+OK"] or (bool(last) and last[0].startswith(b"-OOM "))

    def _free_bytes(self) -> int | None:
        return free_bytes(self.redis.data_dir)

    def _space_left(self) -> str:
        free = self._free_bytes()
        if free is None:
            return "space left in the data folder unknown"
        return f"{free:,} bytes left in the data folder"
