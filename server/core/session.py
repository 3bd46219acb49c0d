"""A client's session: who it is once hello succeeded, and where it takes part.

Plain state, no I/O: `send` is the connection's (server/net/conn.py) and
never blocks. The transport (the socket, its outbound queue) and the inbound
side (rate credits, the work that waits) are server/net's; the session is
what the race logic knows of a connection: its player, and the races,
spectated races and quick-match queues it is in.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol


class Reply(Protocol):
    """A reply that comes later, in its place among the connection's replies."""

    def __call__(self, frame: bytes) -> None: ...

    def settle(self) -> None:
        """No reply will come: let the frames behind it go."""


class _Now:
    """A reply sent as soon as it is known (a session without an ordered reply queue)."""

    __slots__ = ("send",)

    def __init__(self, send: Callable[[bytes], None]) -> None:
        self.send = send

    def __call__(self, frame: bytes) -> None:
        self.send(frame)

    def settle(self) -> None:
        pass


class Session:
    __slots__ = (
        "send",
        "conn_id",
        "later",
        "transport",
        "addr",
        "pid",
        "name",
        "races",
        "spectating",
        "quick",
        "guest_token",
        "__weakref__",
    )

    def __init__(
        self,
        send: Callable[[bytes], None],
        transport: Any = None,
        later: Callable[[], Reply] | None = None,
    ) -> None:
        self.send = send  # the connection's send: queue one frame, never blocks
        # A random id, unique over every process: it names this connection in Redis (a holder of a
        # quick-match or rated pool entry) and in notices (the asker spared by a revocation).
        self.conn_id = secrets.token_hex(8)
        # A slot for a reply known later (the ack of a move): frames sent after it wait for it.
        self.later: Callable[[], Reply] = later if later is not None else partial(_Now, send)
        self.transport = transport  # the connection itself (server/net/conn.py), for broadcasts
        self.addr = ""  # the client's address (per-address limits)
        self.pid: str | None = None  # set by hello
        self.name = ""
        self.races: set[str] = set()  # races where this connection receives member events
        self.spectating: set[str] = set()
        self.quick: set[tuple[str, int]] = set()  # (game, seats) queues joined
        self.guest_token: str | None = None  # the guest session token of its hello (None: an account's)

    @property
    def account(self) -> bool:
        """Its player is an account (hello with an account's token, or a claim: no guest token
        then): the seats it takes are marked as an account's on the wire (`Player.account`)."""
        return self.pid is not None and self.guest_token is None

    @property
    def player(self) -> str:
        """The player id of a session past hello (every request but hello comes after it)."""
        pid = self.pid
        assert pid is not None, "a request before hello"
        return pid
