"""Gap fill after the pub/sub connection came back: what a room missed, and how often to retry.

While pub/sub was down a room may have missed events. The fan-out reads the
race and, when its version passed the last one forwarded, the event stream
after that version; the missed events then go out before the ones held back
meanwhile (the room skips what it forwarded already). When the stream no
longer reaches back that far, the current snapshot goes out instead: its
version jump makes clients resync.
"""

from __future__ import annotations

from typing import TypeGuard

from protocol import messages as m

from .race_views import snapshot
from .record import Race

#: Tries of a read right after Redis came back (pooled connections may still be stale).
ATTEMPTS = 6


def retry_delay_s(attempt: int) -> float:
    """The wait after the `attempt`-th failed try (from 0): 50 ms, doubling."""
    return 0.05 * 2.0**attempt


def needs_fill(race: Race | None, sent: int) -> TypeGuard[Race]:
    """Whether events after version `sent` (the last forwarded) exist (None: the race is gone)."""
    return race is not None and race.ver > sent


def fill_frames(race: Race, missed: list[bytes] | None) -> list[bytes]:
    """The frames to forward: the missed events, or (the stream lost some) the snapshot."""
    if missed is not None:
        return missed
    return [m.encode(m.RaceSnapshot(**snapshot(race)))]
