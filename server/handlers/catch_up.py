"""A reply read from Redis, in its place among the live events of its race (docs/protocol.md
§1 Versions, §3 `resync`, §4 `spectate`).

A `spectate` reply (the snapshot) or a `state` (`resync`, and the one after an out-of-sync
move) is read from Redis while this process goes on forwarding the race's events to the
connection. The reply's place among the connection's frames is taken (`Session.later`) before
a `state` is read, and before a spectator enters the room: every event forwarded to the
connection from then on goes out behind it, and every one sent before it is at or below what a
read made after that sees, since Redis stores an event before any process forwards it. So no
event newer than the reply overtakes it. A spectator's snapshot, read before it entered the
room (to check that it may), is read again when the room forwarded newer events meanwhile
(handlers/watch.py), else its first live event would jump past versions it never gets.

Events at or below the reply's version may still come after it (this process's bus may be
behind Redis), and they are sent: a client ignores an event whose version it has (§1 Versions).
They are not dropped, because a client may ask for a `state` for one part of its screen and
leave the events to drive another. The web client's arena panel does: a `start` or `end`
dropped behind its `resync` was lost to the race page.

The move path is not involved: acks are replies, in request order already, and a move of the
connection is read only after its `resync` was answered (server/net/inbound.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from protocol import messages as m

from ..core.session import Session


async def state(s: Session, read: Callable[[], Awaitable[m.State]]) -> None:
    """Send `s` the `state` that `read` reads, in its place among the race's live events
    (module doc)."""
    reply = s.later()
    try:
        st = await read()
    except BaseException:
        reply.settle()  # the error goes out behind what was queued
        raise
    reply(m.encode(st))
