"""The client's state: its servers, identity, boards, race versions, requests in flight."""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection

from protocol import messages as m

from .board import Board
from .endpoints import Endpoint
from .errors import NotConnected

T = TypeVar("T")


class ClientState:
    """What a connection knows: set up here, kept up to date by the reader
    (`tracking`), used by the requests (`requesting`, `calls`)."""

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        name: str | None = None,
        token: str | None = None,
        reconnect: bool = False,
        timeout: float = 10.0,
        backoff_base: float = 0.05,
        backoff_max: float = 5.0,
        max_reconnect_attempts: int | None = None,
        max_events: int = 100_000,
    ) -> None:
        self.urls: list[str] = [url] if isinstance(url, str) else list(url)
        if not self.urls:
            raise ValueError("connect: no server URL")
        #: The URL of the current (or last) connection.
        self.url = self.urls[0]
        #: The endpoint of the current (or last) connection.
        self.endpoint: Endpoint | None = None
        # The identity to say hello with, then the one the last `welcome` gave (the
        # public read-only `name`, `token`, `player`, `welcome` below).
        self._name = name
        self._token = token
        self._player: str | None = None
        self._welcome: m.Welcome | None = None
        self.limits: dict[str, int] = {}
        self.reconnect = reconnect
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_reconnect_attempts = max_reconnect_attempts
        #: Per race this client plays: its own board.
        self.boards: dict[str, Board] = {}
        #: Latest snapshot per race known to this client, updated by events: an older one
        #: (a reply the race's events overtook) and events already in it change nothing.
        self.races_seen: dict[str, m.RaceSnapshot] = {}
        #: Last race version seen per race.
        self.versions: dict[str, int] = {}
        self.spectating: set[str] = set()
        # Private races' invites (from a link, or handed to us as a player): sent
        # again with every request that needs one, resyncs after a reconnect included.
        self.invites: dict[str, str] = {}
        #: Estimated server clock minus local clock, ms (from `ping`).
        self.clock_offset_ms: float | None = None

        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._rids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        # rid -> (race, n, move, view) of moves in flight, for resending.
        self._moves: dict[int, tuple[str, int, str, bool]] = {}
        # rids of the moves in flight that a drop fails (`move(resend=False)`), not resent.
        self._no_resend: set[int] = set()
        # rid -> race of `finish` requests: their `ok` carries the race version.
        self._finishes: dict[int, str] = {}
        # rids of the `spectate`s sent again after a reconnect: their reply is an event too.
        self._rewatching: set[int] = set()
        self._move_locks: dict[str, asyncio.Lock] = {}
        self._missing: dict[str, set[int]] = {}
        self._resyncing: set[str] = set()
        self._events: deque[object] = deque(maxlen=max_events)
        self._waiters: list[asyncio.Future[None]] = []
        self._connected = asyncio.Event()
        self._closing = False
        self._closed = False
        self._background: set[asyncio.Task[Any]] = set()

    # Set by every `welcome` (a reconnection's too) and kept after the connection closes:
    # asked before the first one, each raises `NotConnected`.

    @property
    def welcome(self) -> m.Welcome:
        """The server's `welcome` to the latest hello (its races, limits, ...)."""
        return _known("welcome", self._welcome)

    @property
    def player(self) -> str:
        """This client's player id."""
        return _known("player", self._player)

    @property
    def token(self) -> str:
        """The session's token: keep it to resume as this player (`connect(token=...)`)."""
        return _known("token", self._token if self._welcome is not None else None)

    @property
    def name(self) -> str:
        """The player's display name."""
        return _known("name", self._name if self._welcome is not None else None)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _invite(self, race: str, invite: str | None) -> str | None:
        if invite is not None:
            self.invites[race] = invite
        return self.invites.get(race)


def _known(what: str, value: T | None) -> T:
    if value is None:
        raise NotConnected(f"the client's {what} is known once it has connected: await open() first")
    return value
