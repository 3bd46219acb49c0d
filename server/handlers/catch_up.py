"""A reply read from Redis, in its place among the live events of its race (docs/protocol.md
§1 Versions, §3 `resync`, §4 `spectate`).

A `spectate` reply (the snapshot) or a `state` (`resync`, and the one after an out-of-sync
move) is read from Redis while this process goes on forwarding the race's events to the
connection. Either could overtake the other: an event newer than the reply sent before it, an
event the reply holds already sent after it. The order made here: the events of the race sent
before the reply are at or below its version, and those after it follow it exactly (its
version + 1, then on). So:

- the reply's place among the connection's frames is taken (`Session.later`) before a
  `state` is read, and before a spectator enters the room: every event forwarded to the
  connection from then on waits behind it. Every one sent before is at or below what a read
  made after that sees, since Redis stores an event before any process forwards it; a
  spectator's snapshot, read before it entered the room (to check that it may), is read again
  when the room forwarded newer events meanwhile (handlers/watch.py);
- before the reply goes out, the room must have forwarded the reply's version (`caught_up`):
  this process's bus may lag behind Redis, and the events up to that version would otherwise
  come after the reply. At most CATCH_UP_S, and not while the bus is down (the reply goes, and
  the older events that still come after it are ones a client ignores, §1 Versions);
- the events waiting behind the reply at or below its version are dropped: it holds them.

The move path is not involved: acks are replies, in request order already, and a move of the
connection is read only after its `resync` was answered (server/net/inbound.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from protocol import messages as m

from ..core.room import Room
from ..core.session import Reply, Session
from .runtime import Runtime

log = logging.getLogger("solrace.fanout")

CATCH_UP_S = 2.0  # the longest a reply waits for its room to forward its version

# The race events a reply of that race may hold (`start`: a seated player's, from the snapshot
# that started the race; a `state` holds its `you`).
RACE_EVENTS = frozenset({"race", "progress", "end", "start"})

encode = m.encode


class _Tagged(msgspec.Struct):
    """What tells a queued frame apart: any frame, so every field may be anything."""

    t: Any = None
    race: Any = None
    ver: Any = None
    rid: Any = None


_tagged = msgspec.msgpack.Decoder(_Tagged)


def stale_events(rid: str, ver: int) -> Callable[[bytes], bool]:
    """Whether a frame is an event of race `rid` at or below `ver` (not a reply: no `rid`)."""

    def stale(frame: bytes) -> bool:
        try:
            head = _tagged.decode(frame)
        except msgspec.MsgspecError:
            return False
        v = head.ver
        return (
            head.rid is None
            and head.t in RACE_EVENTS
            and head.race == rid
            and type(v) is int
            and 0 < v <= ver
        )

    return stale


def state_version(st: m.State) -> int:
    """The version a `state` brings its client to: its snapshot's, or its last event's if newer
    (the events are read after the snapshot)."""
    ver = st.race.ver
    events: list[Any] = list(st.events or ())
    for ev in events:
        # The server's events are the stored frames, as they are (handlers/play.py `state`).
        v = _tagged.decode(ev).ver if isinstance(ev, msgspec.Raw) else ev.ver
        if type(v) is int and v > ver:
            ver = v
    return ver


def answer(reply: Reply, rid: str, ver: int, frame: bytes) -> None:
    """Fill `reply` with `frame`, a reply at version `ver` of race `rid`: the events of the
    race at or below `ver` queued behind it are dropped first."""
    reply.drop_behind(stale_events(rid, ver))
    reply(frame)


class Arrivals:
    """Replies waiting for their room to forward their version (`Fanout.forward` wakes them)."""

    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.waiting: dict[Room[Session], list[tuple[int, asyncio.Future[None]]]] = {}

    def wake(self, room: Room[Session]) -> None:
        """The room forwarded an event: wake the replies whose version it has reached."""
        waits = self.waiting.get(room)
        if waits is None:
            return
        sent = room.sent
        left = []
        for ver, fut in waits:
            if ver <= sent:
                if not fut.done():
                    fut.set_result(None)
            else:
                left.append((ver, fut))
        if left:
            self.waiting[room] = left
        else:
            del self.waiting[room]

    async def caught_up(self, room: Room[Session], ver: int) -> bool:
        """Until `room` has forwarded version `ver`: True; False after CATCH_UP_S, or at once
        while the bus is down (the gap fill after its return brings the events, however long
        that takes: the connection's requests would wait behind this one meanwhile)."""
        if room.sent >= ver:
            return True
        if not self.svc.bus.connected.is_set():
            return False
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (ver, fut)
        self.waiting.setdefault(room, []).append(entry)
        try:
            async with asyncio.timeout(CATCH_UP_S):
                await fut
            return True
        except TimeoutError:
            log.info("race %s: a reply at version %d went out before its room forwarded it", room.rid, ver)
            return False
        finally:
            waits = self.waiting.get(room)
            if waits is not None and entry in waits:
                waits.remove(entry)
                if not waits:
                    del self.waiting[room]

    async def state(self, s: Session, rid: str, read: Callable[[], Awaitable[m.State]]) -> None:
        """Send `s` the `state` of race `rid` that `read` reads, in its place among the race's
        live events (module doc)."""
        reply = s.later()
        try:
            st = await read()
            ver = state_version(st)
            room = self.svc.local.get(rid)
            if room is not None and (rid in s.races or rid in s.spectating):
                await self.caught_up(room, ver)
        except BaseException:
            reply.settle()  # the error goes out behind what was queued
            raise
        answer(reply, rid, ver, encode(st))
