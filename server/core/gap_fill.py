"""Gap fill: what a room missed while it was not subscribed, and when to read it.

A race event published while this process was not subscribed to the race's
channel (a new room's subscription not confirmed yet; pub/sub lost to a Redis
restart, a network cut, a CLIENT KILL) reaches it only from the race's event
stream. So each time Redis confirms a race channel's subscription the room is
filled: from that confirmation on every event arrives live (held back while
the fill runs), and every earlier one is in the stream, read after it from
the last version forwarded (`room.sent`). The missed events then go out
before the held ones, each once (the room skips what it forwarded already).
When the stream no longer reaches back that far, the current snapshot goes
out instead: its version jump makes clients resync.

A confirmation while a fill of the same room runs (pub/sub dropped again
meanwhile) must not be lost: the events of that second gap may be newer than
the running fill's read, so the fill reads once more before it ends.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from protocol import messages as m

from .race_views import snapshot
from .record import Race
from .room import Room

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


class Fills:
    """Which rooms are being filled, and which must read the stream once more (no I/O).

    A room's fill runs while `room.filling` holds the live events kept back
    for after it; `request` starts one, `read_again` says after each read
    whether another is due, `done` ends it and hands back the held events.
    """

    def __init__(self) -> None:
        self._again: set[Room[Any]] = set()  # a subscription was confirmed again during their fill

    def request(self, room: Room[Any]) -> bool:
        """Redis confirmed the room's subscription: True to start a fill now (live events are
        held from here on); False if one runs already (it reads again before it ends)."""
        if room.filling is not None:
            self._again.add(room)
            return False
        room.filling = []
        return True

    def read_again(self, room: Room[Any]) -> bool:
        """A read of the fill is done: whether the stream must be read once more (from the
        version forwarded by then), a confirmation having come during the read."""
        if room in self._again:
            self._again.discard(room)
            return True
        return False

    def done(self, room: Room[Any]) -> list[bytes]:
        """The fill ends: the events held meanwhile (forwarded after the missed ones); live
        events go out directly again."""
        self._again.discard(room)
        held, room.filling = room.filling or [], None
        return held
