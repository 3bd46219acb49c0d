"""One connection's inbound side: its session, its rate credits, and the work that waits.

The rate credits are the connection's own until hello, then its player's,
shared by all the player's connections on this process (server/net/gateway.py).

Frames are handled synchronously as they are parsed (server/net/dispatch.py);
one that needs to wait (Redis, a cold-path request) becomes the connection's
`job`, run by its handler task (server/net/gateway.py), and the frames behind it wait in `inq`
(reading pauses beyond INBOUND_HIGH of them), so a connection's requests are
answered in order; a detached request (the solver's) runs `aside` instead.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable

from ..core.session import Session
from .conn import Conn
from .ratelimit import RateLimit

INBOUND_HIGH = 16  # frames waiting behind a job before reading pauses (websockets' max_queue)
INBOUND_LOW = 4  # ...and resumes


class Inbound:
    __slots__ = (
        "conn",
        "session",
        "rate",
        "inq",
        "busy",
        "job",
        "wake",
        "paused",
        "lost",
        "hello_by",
        "timer",
        "player",
        "aside",
    )

    def __init__(self, conn: Conn, rate: RateLimit) -> None:
        self.conn = conn
        self.session = Session(conn.send, conn, conn.later)
        self.session.addr = conn.addr
        self.rate = rate
        self.inq: deque[bytes | str] | None = None  # created when a frame has to wait
        self.busy = False  # a job runs: new frames wait in inq
        self.job: Awaitable[None] | None = None
        self.wake: asyncio.Future[bool] | None = None
        self.paused = False  # reading paused (inq full)
        self.lost = False  # the TCP connection is gone
        self.hello_by: float | None = None  # loop time by which hello must have succeeded
        self.timer: asyncio.TimerHandle | None = None  # HELLO_TIMEOUT, cancelled by the hello
        self.player: str | None = None  # once counted among its player's connections
        # Requests answered beside the queue (`Service.detached`: the solver's), still running.
        self.aside: set[asyncio.Task[None]] = set()
