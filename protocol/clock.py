"""A player's own clock in a race (docs/protocol.md, the race snapshot's player map).

Every player's clock ends at the race's `deadline`, except an arena player who
berserked: they took half the race's clock (rounded up to a whole second) for
one more point if they win, so theirs ends at `starts_at + half_clock_s(time_limit_s)`
seconds and they are stopped there while the others play on. The server's race
clock and every client's display use these two functions, so they agree.
"""

from __future__ import annotations


def half_clock_s(time_limit_s: int) -> int:
    """A berserk player's clock: half the race's, rounded up."""
    return (time_limit_s + 1) // 2


def own_deadline(deadline: int | None, starts_at: int | None, time_limit_s: int, berserk: bool) -> int | None:
    """When one player's clock runs out (ms since the epoch; None before the start)."""
    if not berserk or starts_at is None:
        return deadline
    return starts_at + half_clock_s(time_limit_s) * 1000
