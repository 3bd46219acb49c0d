"""Redis Cluster support: the URL form, the cold-path client, a slot-routed move pipe.

A cluster is named by a URL with the scheme ``redis+cluster://`` and one or
more seed nodes (any node will do; the rest are discovered)::

    redis+cluster://127.0.0.1:7000
    redis+cluster://:password@10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000

Why it works without cross-slot operations: every key of a race carries the
hash tag ``{race:ID}`` (one slot, so one script can touch all of it), and
every other key is used alone or with keys of its own tag (``pl:{PID}``,
``pl:{PID}:races``). Multi-key pipelines of the cold paths are non-
transactional, so redis-py's cluster pipeline splits them per node.

- Cold paths use redis-py's `RedisCluster` (it follows MOVED/ASK itself).
- The move path uses `ClusterPipe`: one pipelined `resp.Pipe` per primary,
  each move routed by the slot of its race key. Moves of one race go to one
  node over one connection, so they stay in order. A ``MOVED`` reply
  (resharding, failover) updates the slot table and resends the command to
  the new owner; ``ASK`` resends once with ``ASKING``; a lost node connection
  triggers a refresh of the slot table (CLUSTER SLOTS).
- Pub/sub: Redis 6.2 delivers a PUBLISH on any node to subscribers on every
  node, so the bus subscribes on one node (`pubsub_url`, rotating through the
  known nodes when it reconnects).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.crc import key_slot

from .resp import REPLY_TIMEOUT_S, Pipe, ReplyError

log = logging.getLogger("solrace.cluster")

SCHEME = "redis+cluster"
SLOTS = 16384
MAX_REDIRECTS = 5


def is_cluster_url(url: str) -> bool:
    return url.startswith(SCHEME + "://")


class ClusterURL:
    """The parts of a ``redis+cluster://[user:password@]host:port[,host:port...]`` URL."""

    def __init__(self, url: str) -> None:
        if not is_cluster_url(url):
            raise ValueError(f"not a {SCHEME}:// URL: {url!r}")
        rest = url[len(SCHEME) + 3 :]
        auth, _, hosts = rest.rpartition("@")
        hosts = hosts.split("/", 1)[0].split("?", 1)[0]
        self.username: str | None = None
        self.password: str | None = None
        if auth:
            user, sep, password = auth.partition(":")
            if sep:
                self.username, self.password = unquote(user) or None, unquote(password)
            else:
                self.password = unquote(user)
        self.nodes: list[tuple[str, int]] = []
        for part in hosts.split(","):
            if not part:
                continue
            u = urlsplit("//" + part)
            self.nodes.append((u.hostname or "127.0.0.1", u.port or 6379))
        if not self.nodes:
            raise ValueError(f"no node in {url!r}")

    def node_url(self, host: str, port: int) -> str:
        """A plain redis:// URL of one node, with the credentials."""
        auth = ""
        if self.password is not None:
            auth = f"{self.username or ''}:{self.password}@"
        h = f"[{host}]" if ":" in host else host
        return f"redis://{auth}{h}:{port}/0"


def cold_client(url: str, timeout_s: float = REPLY_TIMEOUT_S) -> Any:
    """redis-py's RedisCluster for a redis+cluster:// URL (responses as bytes)."""
    from redis.asyncio.cluster import ClusterNode, RedisCluster

    cu = ClusterURL(url)
    return RedisCluster(
        startup_nodes=[ClusterNode(h, p) for h, p in cu.nodes],
        username=cu.username,
        password=cu.password,
        decode_responses=False,
        socket_timeout=timeout_s,
    )


class ClusterPipe:
    """`resp.Pipe`'s interface over a cluster: `call_packed(packed, callback, key)`."""

    def __init__(self, url: str, reply_timeout: float = REPLY_TIMEOUT_S) -> None:
        self.cu = ClusterURL(url)
        self.url = url
        self.reply_timeout = reply_timeout
        self.slots: list[tuple[str, int] | None] = [None] * SLOTS
        self.pipes: dict[tuple[str, int], Pipe] = {}
        self.known: list[tuple[str, int]] = list(self.cu.nodes)
        self._refreshing: asyncio.Task[None] | None = None
        self._rotate = itertools.count()
        self._closed = False

    # --- topology ---------------------------------------------------------------------

    async def connect(self) -> None:
        await self.refresh()

    async def refresh(self) -> None:
        """Read the slot table from the first node that answers; connect to every primary."""
        errors = []
        for addr in dict.fromkeys(self.known + self.cu.nodes):  # known first, seeds as fallback
            pipe = self._pipe(addr)
            try:
                async with asyncio.timeout(2.0):
                    await pipe.connect()
                async with asyncio.timeout(2.0):
                    table = await pipe.execute("CLUSTER", "SLOTS")
            except (OSError, ConnectionError, TimeoutError) as exc:
                errors.append(f"{addr[0]}:{addr[1]}: {exc}")
                continue
            if isinstance(table, Exception) or not table:
                errors.append(f"{addr[0]}:{addr[1]}: {table!r}")
                continue
            primaries = []
            for row in table:
                start, end, master = int(row[0]), int(row[1]), row[2]
                host = master[0].decode() if isinstance(master[0], bytes) else str(master[0])
                node = (host or addr[0], int(master[1]))
                primaries.append(node)
                for s in range(start, end + 1):
                    self.slots[s] = node
            self.known = list(dict.fromkeys(primaries))
            for node in self.known:
                try:
                    async with asyncio.timeout(2.0):
                        await self._pipe(node).connect()
                except (OSError, ConnectionError, TimeoutError) as exc:
                    log.warning("cluster node %s:%d unreachable: %s", node[0], node[1], exc)
            return
        raise ConnectionError("no cluster node answered CLUSTER SLOTS: " + "; ".join(errors))

    def _refresh_soon(self) -> None:
        if self._closed or (self._refreshing is not None and not self._refreshing.done()):
            return

        async def run() -> None:
            try:
                await self.refresh()
            except Exception as exc:
                log.warning("cluster slot refresh failed: %s", exc)

        self._refreshing = asyncio.ensure_future(run())

    def _pipe(self, addr: tuple[str, int]) -> Pipe:
        pipe = self.pipes.get(addr)
        if pipe is None:
            pipe = self.pipes[addr] = Pipe(self.cu.node_url(*addr), self.reply_timeout)
        return pipe

    def pubsub_url(self) -> str:
        """A node for the pub/sub connection (the next known one on each call)."""
        nodes = self.known or self.cu.nodes
        return self.cu.node_url(*nodes[next(self._rotate) % len(nodes)])

    # --- calls ------------------------------------------------------------------------

    def call_packed(self, packed: bytes, callback: Callable[[Any], None], key: str | None = None) -> None:
        if key is None:
            raise ValueError("cluster calls need the key that routes them")
        slot = key_slot(key.encode())
        addr = self.slots[slot] or self.known[0]
        self._send(addr, packed, callback, 0, asking=False)

    def _send(
        self,
        addr: tuple[str, int],
        packed: bytes,
        callback: Callable[[Any], None],
        redirects: int,
        asking: bool,
    ) -> None:
        pipe = self._pipe(addr)

        def done(reply: Any) -> None:
            if isinstance(reply, ReplyError) and redirects < MAX_REDIRECTS:
                text = str(reply)
                if text.startswith(("MOVED ", "ASK ")):
                    kind, slot_s, target = text.split(" ", 2)
                    host, _, port = target.rpartition(":")
                    new = (host or addr[0], int(port))
                    if kind == "MOVED":
                        log.info("cluster slot %s moved to %s:%d", slot_s, *new)
                        self.slots[int(slot_s)] = new
                        self._refresh_soon()
                    self._resend(new, packed, callback, redirects + 1, asking=kind == "ASK")
                    return
            elif isinstance(reply, ConnectionError):
                self._refresh_soon()  # the node may have failed over
            callback(reply)

        if asking:
            pipe.call_packed(b"*1\r\n$6\r\nASKING\r\n", _ignore)
        pipe.call_packed(packed, done)

    def _resend(
        self,
        addr: tuple[str, int],
        packed: bytes,
        callback: Callable[[Any], None],
        redirects: int,
        asking: bool,
    ) -> None:
        pipe = self._pipe(addr)
        if pipe.ready:
            self._send(addr, packed, callback, redirects, asking)
            return

        async def later() -> None:
            try:
                async with asyncio.timeout(2.0):
                    await pipe.connect()
            except Exception as exc:
                callback(ConnectionError(f"cluster node {addr[0]}:{addr[1]} unreachable: {exc}"))
                return
            self._send(addr, packed, callback, redirects, asking)

        asyncio.ensure_future(later())

    def pending(self) -> int:
        return sum(p.pending() for p in self.pipes.values())

    @property
    def ready(self) -> bool:
        return any(p.ready for p in self.pipes.values())

    def close(self) -> None:
        self._closed = True
        if self._refreshing is not None:
            self._refreshing.cancel()
        for p in self.pipes.values():
            p.close()


def _ignore(_reply: Any) -> None:
    pass
