"""Redis with replicas: acknowledgements that wait for them, and finding the primary through Sentinel.

`ReplicatedPipe` wraps the move pipe (a `resp.Pipe`): after the commands of
one event-loop iteration it sends `WAIT N TIMEOUT` on the same connection
and holds their replies until WAIT answers. WAIT returns once N replicas
have acknowledged every write sent before it on that connection, so a move
is acknowledged to its player only when it is on N replicas as well as on
the primary: losing the primary then loses no acknowledged move, provided
the replica that takes over is one of them. If fewer than N replicas
confirm within the timeout, the moves of that batch are answered as failed
(`NotReplicated`, an outage: the player gets `internal` and resends with the
same move count, which is acknowledged as a duplicate once it is
replicated, or applied once if it was lost). One WAIT per batch, not per
move: under load its cost is shared by every move sent while the previous
WAIT was in flight.

`redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[/DB]` names the primary
through Redis Sentinel: the cold paths use redis-py's Sentinel client
(which asks the sentinels again for each new connection), the move pipe and
the pub/sub connection ask the sentinels before each reconnection
(`SentinelPrimary.url` returns the primary last learned and starts a new
lookup), so after a failover they reach the promoted replica within a few
reconnection attempts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from .resp import REPLY_TIMEOUT_S, Pipe, pack, redact_url

log = logging.getLogger("solrace.redis")

SCHEME = "redis+sentinel"


class NotReplicated(ConnectionError):
    """WAIT counted fewer replicas than required in time: the write may be on the primary only."""


class ReplicatedPipe:
    """A move pipe whose replies are released once WAIT confirms `replicas` replicas have them.

    At most one WAIT is in flight: WAIT blocks the connection in Redis (the
    commands behind it wait their turn), so the moves sent meanwhile are
    covered together by the next WAIT, sent when the first one answers. The
    batch grows with the replication round trip instead of costing one round
    trip per event-loop iteration.
    """

    def __init__(self, pipe: Pipe, replicas: int, timeout_ms: int) -> None:
        self.pipe = pipe
        self.replicas = replicas
        self.timeout_ms = timeout_ms
        self._open: list[tuple[Callable[[Any], None], list[Any]]] = []  # sent, no WAIT covers them yet
        self._waiting = False  # a WAIT is in flight
        self._sealing = False  # a WAIT is to be sent at the end of this loop iteration

    def call_packed(self, packed: bytes, callback: Callable[[Any], None], key: str | None = None) -> None:
        slot: list[Any] = []
        self._open.append((callback, slot))
        self.pipe.call_packed(packed, slot.append, key)
        if not self._waiting and not self._sealing:
            self._sealing = True
            # Scheduled before the pipe's own flush of this iteration, so WAIT goes out in the same write.
            asyncio.get_running_loop().call_soon(self._seal)

    def _seal(self) -> None:
        self._sealing = False
        if self._waiting or not self._open:
            return
        batch, self._open = self._open, []
        self._waiting = True
        wait = pack(["WAIT", self.replicas, self.timeout_ms])
        self.pipe.call_packed(wait, lambda reply: self._release(batch, reply))

    def _release(self, batch: list[tuple[Callable[[Any], None], list[Any]]], reply: Any) -> None:
        self._waiting = False
        if isinstance(reply, int) and reply >= self.replicas:
            failure: BaseException | None = None
        elif isinstance(reply, BaseException):
            failure = reply
        else:
            failure = NotReplicated(
                f"WAIT: {reply} of {self.replicas} replica(s) confirmed within {self.timeout_ms} ms"
            )
        for callback, slot in batch:
            # Replies come in order, so each command's slot is filled before WAIT's reply arrives.
            outcome = slot[0] if slot else ConnectionError("no reply")
            if failure is not None and not isinstance(outcome, BaseException):
                outcome = failure
            try:
                callback(outcome)
            except Exception:  # a callback bug must not keep the rest of the batch waiting
                log.exception("redis reply callback failed")
        self._seal()  # the moves sent while this WAIT was in flight


def is_sentinel_url(url: str) -> bool:
    return url.startswith(SCHEME + "://")


class SentinelPrimary:
    """The primary of a `redis+sentinel://` URL, looked up in its sentinels."""

    def __init__(self, url: str) -> None:
        if not is_sentinel_url(url):
            raise ValueError(f"not a {SCHEME}:// URL: {redact_url(url)!r}")
        rest = url[len(SCHEME) + 3 :]
        auth, _, rest = rest.rpartition("@")
        hosts, _, path = rest.partition("/")
        parts = [p for p in path.split("/") if p]
        if not parts:
            raise ValueError(
                f"{redact_url(url)!r}: name the monitored primary, {SCHEME}://host:port/SERVICE[/DB]"
            )
        self.service = parts[0]
        self.db = int(parts[1]) if len(parts) > 1 else 0
        user, _, password = auth.partition(":") if ":" in auth else ("", "", auth)
        self.username = unquote(user) or None
        self.password = unquote(password) or None
        self.sentinels: list[tuple[str, int]] = []
        for hp in hosts.split(","):
            host, _, port = hp.strip().rpartition(":")
            self.sentinels.append((host or "127.0.0.1", int(port or 26379)))
        self.current: str | None = None  # redis:// URL of the primary as last learned
        self._lookup: asyncio.Task[str | None] | None = None

    def _primary_url(self, host: str, port: int) -> str:
        auth = ""
        if self.password:
            auth = f"{self.username or ''}:{self.password}@"
        return f"redis://{auth}{host}:{port}/{self.db}"

    async def lookup(self) -> str | None:
        """Ask the sentinels, in turn, where the primary is; its URL, or None if none answers."""
        for host, port in self.sentinels:
            try:
                async with asyncio.timeout(1.0):
                    reader, writer = await asyncio.open_connection(host, port)
            except (OSError, TimeoutError):
                continue
            try:
                writer.write(pack(["SENTINEL", "get-master-addr-by-name", self.service]))
                async with asyncio.timeout(1.0):
                    reply = await _read_pair(reader)
            except (OSError, TimeoutError, ValueError):
                continue
            finally:
                writer.close()
            if reply is not None:
                url = self._primary_url(*reply)
                if url != self.current:
                    log.info("sentinel %s:%d: the primary of %s is %s:%d", host, port, self.service, *reply)
                self.current = url
                return url
        return None

    def url(self) -> str:
        """The primary last learned (for a reconnection); starts a new lookup for the next one."""
        if self._lookup is None or self._lookup.done():
            self._lookup = asyncio.get_running_loop().create_task(self.lookup())
        return self.current or self._primary_url(*self.sentinels[0])

    def cold_client(self, max_connections: int, timeout_s: float = REPLY_TIMEOUT_S) -> Any:
        """redis-py's client of the primary through the sentinels (bytes responses)."""
        from redis.asyncio.sentinel import Sentinel

        make: Any = Sentinel  # redis-py's Sentinel is untyped
        sentinel = make(self.sentinels, socket_timeout=2.0)
        return sentinel.master_for(
            self.service,
            db=self.db,
            username=self.username,
            password=self.password,
            decode_responses=False,
            max_connections=max_connections,
            socket_timeout=timeout_s,
        )


async def _read_pair(reader: asyncio.StreamReader) -> tuple[str, int] | None:
    """The reply of SENTINEL get-master-addr-by-name: (host, port), or None (unknown service)."""
    head = await reader.readline()
    if head.startswith(b"*-1") or head.startswith(b"$-1"):
        return None
    if not head.startswith(b"*2"):
        raise ValueError(f"unexpected sentinel reply {head!r}")
    items = []
    for _ in range(2):
        await reader.readline()  # $len
        items.append((await reader.readline()).strip().decode())
    return items[0], int(items[1])
