"""What the handlers need of the process that runs them (server/service.py `Service`).

A `Protocol`, so that the handlers depend on this description and not on the
service module that builds them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from ..config import Settings
from ..core import races as R
from ..core.moves import Entry
from ..core.room import Room
from ..core.session import Session
from ..metrics import Metrics
from ..storage import Store
from ..storage.pubsub import Subscriber
from ..storage.sessions import Resumed


class Runtime(Protocol):
    settings: Settings
    store: Store
    metrics: Metrics
    bus: Subscriber
    stopping: bool
    games: dict[tuple[str, str], Entry]  # (race, player) -> the cached game
    local: dict[str, Room[Session]]  # race -> its room here
    players: dict[str, set[Session]]  # player -> their sessions here
    seed_factory: Callable[[], str]
    spectate_guard: Callable[[Session, R.Race], Awaitable[None]] | None
    replay_guard: Callable[[Session, R.Race], Awaitable[None]] | None
    certified_deal: Callable[[str, bool | None], Awaitable[tuple[str, list[str]] | None]] | None
    end_hooks: list[Callable[[R.Race, dict[str, list[tuple[int, int, str]]]], Awaitable[None]]]
    disconnect_hooks: list[Callable[[Session], Awaitable[None]]]
    # hello's token -> the resumed session, None if unknown (server/handlers/accounts.py adds account tokens)
    resume: Callable[[Session, str], Awaitable[Resumed | None]]
    bus_hooks: dict[bytes, Callable[[bytes, bytes], None]]
    notice_hooks: dict[str, Callable[[str, bytes], None]]
    # A coalescible frame to many sessions; one with a backlog skips it (set by the gateway).
    broadcast_latest: Callable[[Iterable[Session], bytes], object]

    def now_ms(self) -> int: ...
    def spawn(self, coro: Awaitable[Any]) -> Any: ...
    def failed(self, what: str, exc: BaseException) -> None: ...
    def tick_soon(self, rid: str) -> None: ...
    async def unspectate(self, s: Session, rid: str) -> None: ...
    def drop_seated_spectators(self, room: Room[Session], pids: list[str]) -> None: ...
    def ensure_room(self, race: R.Race) -> Room[Session]: ...
    def drop_room(self, room: Room[Session]) -> None: ...
    def drop_room_if_idle(self, room: Room[Session]) -> None: ...
    def add_member(self, s: Session, race: R.Race) -> None: ...
    def remove_member(self, s: Session, rid: str) -> None: ...
    def arm_timer(self, room: Room[Session]) -> None: ...
