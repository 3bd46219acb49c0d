"""Coalesced frames to many sockets: the spectator boards.

The bus itself — one pub/sub connection per process, the per-race channels,
forwarding published events to local members and spectators, and the gap
fill from each race's event stream after a reconnect — lives in
server/handlers/fanout.py (`on_bus`, `forward`, `on_bus_reconnect`),
server/core/room.py (the order) and server/storage/pubsub.py (`Subscriber`).

`broadcast_latest` sends a *coalescible* frame (latest wins: the spectator
boards, sampled every SPECTATOR_FLUSH) to many connections with one
`websockets.broadcast` call. A connection with a backlog (frames queued, or
its transport buffer above the high-water mark) is skipped: it will get a
later frame instead of piling this one up behind the others (docs/operations.md:
coalescible updates are dropped, acks and own reveals never are). A
connection with frames pending in this loop iteration gets the frame through
its own `send`, behind them (so does one whose replies wait for an earlier one).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from websockets.asyncio.server import broadcast
from websockets.protocol import State

_OPEN = State.OPEN


def broadcast_latest(conns: Iterable[Any], frame: bytes) -> tuple[int, int]:
    """Send `frame` to every connection that keeps up; returns (sent, skipped)."""
    ready = []
    skipped = 0
    for c in conns:
        if c.closed:
            continue
        ws = c.ws
        if c.queue or ws.protocol.state is not _OPEN or ws.transport.get_write_buffer_size() >= c.high:
            skipped += 1  # backlogged: it gets the next one
            continue
        if getattr(c, "out", None) or getattr(c, "order", None):
            c.send(frame)  # frames of this iteration are waiting: keep the order
            continue
        ready.append(ws)
    if ready:
        broadcast(ready, frame)
    return len(ready), skipped
