"""A client's session: who it is once hello succeeded, and where it takes part.

Plain state, no I/O: `send` is the connection's (server/net/conn.py) and
never blocks. The transport (the socket, its outbound queue) and the inbound
side (rate credits, the work that waits) are server/net's; the session is
what the race logic knows of a connection: its player, and the races,
spectated races and quick-match queues it is in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Session:
    __slots__ = ("send", "transport", "pid", "name", "races", "spectating", "quick", "__weakref__")

    def __init__(self, send: Callable[[bytes], None], transport: Any = None) -> None:
        self.send = send  # the connection's send: queue one frame, never blocks
        self.transport = transport  # the connection itself (server/net/conn.py), for broadcasts
        self.pid: str | None = None  # set by hello
        self.name = ""
        self.races: set[str] = set()  # races where this connection receives member events
        self.spectating: set[str] = set()
        self.quick: set[tuple[str, int]] = set()  # (game, seats) queues joined

    @property
    def player(self) -> str:
        """The player id of a session past hello (every request but hello comes after it)."""
        pid = self.pid
        assert pid is not None, "a request before hello"
        return pid
