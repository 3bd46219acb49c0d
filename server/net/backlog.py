"""The process-wide bound on outbound bytes: what slow connections hold, summed (OUTBOUND_TOTAL).

Each connection bounds its own backlog (server/net/conn.py: OUTBOUND_BYTES,
its transport buffer plus its queue). Here the backlogs of the connections
that lag are summed, so that many slow clients together cannot pin more
than OUTBOUND_TOTAL bytes of the process's memory either.

A connection reports its backlog when it lags (a non-empty transport buffer
or queue seen at a flush, and as its queue drains); the figures of the
others may have gone stale (their sockets drained since). So when the sum
passes the bound, every lagging connection is measured again, and only if
the bound is still passed are the largest backlogs closed, largest first,
until the sum is back under it: the clients that read least pay, the others
never notice.
"""

from __future__ import annotations

from typing import Protocol


class Lagging(Protocol):
    def backlog(self) -> int:
        """Bytes the connection holds now: its transport buffer plus its queue."""
        ...

    def overflow(self) -> None:
        """Close the connection: it holds too much of the process's outbound memory."""
        ...


class Backlog:
    __slots__ = ("limit", "sizes", "total", "closed")

    def __init__(self, limit: int) -> None:
        self.limit = limit  # OUTBOUND_TOTAL bytes; 0: no process-wide bound
        self.sizes: dict[Lagging, int] = {}  # connections that lag, and their last known backlog
        self.total = 0
        self.closed = 0  # connections closed for the process-wide bound

    def report(self, conn: Lagging, size: int) -> None:
        """`conn` holds `size` bytes now (0: it caught up)."""
        old = self.sizes.get(conn, 0)
        if size:
            self.sizes[conn] = size
        elif old:
            del self.sizes[conn]
        self.total += size - old
        if self.limit and size > old and self.total > self.limit:
            self._enforce()

    def forget(self, conn: Lagging) -> None:
        """`conn` is gone: it holds nothing any more."""
        old = self.sizes.pop(conn, 0)
        self.total -= old

    def _enforce(self) -> None:
        sizes: dict[Lagging, int] = {}
        for conn in self.sizes:
            size = conn.backlog()
            if size:
                sizes[conn] = size
        self.sizes = sizes
        self.total = sum(sizes.values())
        if self.total <= self.limit:
            return
        for conn, size in sorted(sizes.items(), key=lambda item: item[1], reverse=True):
            del self.sizes[conn]
            self.total -= size
            self.closed += 1
            conn.overflow()
            if self.total <= self.limit:
                return
