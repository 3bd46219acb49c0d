"""The log of the closes the server starts for a client's behaviour (docs/operations.md §10).

One INFO line per close, with the client's address, its code and reason, so that an operator
can find who was closed for what; bounded, so that a flood cannot flood the log. A TCP
connection dropped at accept, unread, for a limit of the socket gate (server/net/admission.py
`SocketGate`) is such a close too: `refused at accept: ...`, under the same bounds.
"""

from __future__ import annotations

import asyncio
import logging
import time

# The log of closes the server starts (`CloseLog`): at most
# CLOSE_LOG_PER_ADDR lines per client address per CLOSE_LOG_WINDOW_S, and at most CLOSE_LOG_PER_S
# lines a second in all (a flood from many addresses); what is left out is summed up in one line
# at most every CLOSE_LOG_SUMMARY_S.
CLOSE_LOG_PER_ADDR = 5
CLOSE_LOG_WINDOW_S = 60.0
CLOSE_LOG_PER_S = 10
CLOSE_LOG_SUMMARY_S = 10.0

log = logging.getLogger("solrace.gateway")  # the gateway's lines: where they were first


class CloseLog:
    """One INFO line per close the server starts for a client's behaviour, bounded (module doc)."""

    def __init__(self) -> None:
        # Address -> (start of its window, lines logged in it); only addresses that got a line,
        # and pruned each window, so at most about CLOSE_LOG_PER_S * 2 * CLOSE_LOG_WINDOW_S entries.
        self.by_addr: dict[str, tuple[float, int]] = {}
        self.pruned = time.monotonic()
        self.second = 0.0  # start of the current second of the global cap
        self.in_second = 0
        self.suppressed = 0
        self.summary: asyncio.TimerHandle | None = None

    def closed(self, addr: str, code: int, reason: str) -> None:
        if self._may_log(addr):
            log.info("closed the connection of %s with %d: %s", addr, code, reason)

    def refused(self, addr: str, why: str) -> None:
        """A TCP connection from `addr` dropped at accept, unread (`why`: the limit it met)."""
        if self._may_log(addr):
            log.info("refused at accept: %s", why)

    def _may_log(self, addr: str) -> bool:
        """Whether a line about `addr` is within the bounds now; if not, it is counted."""
        now = time.monotonic()
        if now - self.second >= 1.0:
            self.second, self.in_second = now, 0
        start, lines = self.by_addr.get(addr, (now, 0))
        if now - start >= CLOSE_LOG_WINDOW_S:
            start, lines = now, 0
        if self.in_second >= CLOSE_LOG_PER_S or lines >= CLOSE_LOG_PER_ADDR:
            self.suppressed += 1
            if self.summary is None:
                self.summary = asyncio.get_running_loop().call_later(CLOSE_LOG_SUMMARY_S, self.flush)
            return False
        self.in_second += 1
        self.by_addr[addr] = (start, lines + 1)
        if now - self.pruned >= CLOSE_LOG_WINDOW_S:
            self.pruned = now
            self.by_addr = {a: w for a, w in self.by_addr.items() if now - w[0] < CLOSE_LOG_WINDOW_S}
        return True

    def flush(self) -> None:
        """Log how many close lines were left out since the last summary (the timer, and at stop)."""
        if self.summary is not None:
            self.summary.cancel()
            self.summary = None
        if self.suppressed:
            log.info(
                "suppressed %d close lines (at most %d per address per %g s, %d per second)",
                self.suppressed,
                CLOSE_LOG_PER_ADDR,
                CLOSE_LOG_WINDOW_S,
                CLOSE_LOG_PER_S,
            )
            self.suppressed = 0
