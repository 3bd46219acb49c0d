"""The per-connection message rate limit (docs/protocol.md §7: RATE, BURST): a token bucket."""

from __future__ import annotations

import time


class RateLimit:
    __slots__ = ("rate", "burst", "credits", "stamp", "limited")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.credits = float(burst)
        self.stamp = time.monotonic()
        self.limited = 0  # rate-limited messages in a row

    def take(self) -> float:
        """Spend one message credit; return 0 if allowed, else ms until one is available."""
        now = time.monotonic()
        credits = self.credits + (now - self.stamp) * self.rate
        if credits > self.burst:
            credits = self.burst
        self.stamp = now
        if credits >= 1.0:
            self.credits = credits - 1.0
            self.limited = 0
            return 0.0
        self.credits = credits
        self.limited += 1
        return (1.0 - credits) / self.rate * 1000.0
