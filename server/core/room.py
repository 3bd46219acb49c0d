"""One race as this process sees it: who is here, and which events they get, in which order.

Sans-I/O: a `Room` is plain state; the functions below take what happened (a
published event's head, a move's reply, a snapshot, the clock) and return
what must be done, and the asyncio layer (server/service.py, server/handlers/) does it.

Fan-out (docs/protocol.md §3): every race event carries the race
version; each process forwards each event to its local members and
spectators once, in version order. `sent` is the version last forwarded:

- an event at or below `sent` was forwarded already: skip it;
- a progress event goes to every local member but its mover (who has the
  ack) and to the spectators; a timeout's progress has no ack, so its
  player gets it too;
- any other event goes to everyone here; a `race` snapshot may start the
  race (each member then gets their own `started`), an `end` closes the room.

The progress of a move made on this process comes back in the move's reply:
`take_local_progress` says whether it is the room's next version (then it
goes out at once, and its copy on the bus is skipped later) or not (the bus
copy brings it, in order). While a gap fill runs (`filling`), live events
are held back and forwarded after it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from protocol.messages import PlayerStatus, RaceStatus

if TYPE_CHECKING:
    from .deal_track import DealTrack


class Member(Protocol):
    """What a room needs of a local connection: whose it is, and where its frames go."""

    @property
    def player(self) -> str: ...

    def send(self, frame: bytes) -> None: ...


M = TypeVar("M", bound=Member)


@dataclass(eq=False)
class Room(Generic[M]):
    """What this process knows and holds for one race with local connections."""

    rid: str
    game: str
    status: str
    ver: int
    seed: str
    pids: list[str]
    starts_at: int | None
    deadline: int | None
    total: int
    commitment: str
    members: dict[str, set[M]] = field(default_factory=dict)  # player id -> their connections here
    spectators: set[M] = field(default_factory=set)
    timer_at: int | None = None  # when the local timer is armed for (None: not armed)
    dirty: bool = True  # positions changed since the last spectator sample
    samples: deque[tuple[int, list[Any]]] = field(default_factory=deque)  # newest last
    tracks: dict[str, DealTrack] = field(default_factory=dict)  # player -> their game (deal_track.py)
    boards_frame: bytes | None = None  # the boards frame last sent to spectators
    boards_at: int | None = None
    filling: list[bytes] | None = None  # events held back while a gap fill runs
    sent: int = 0  # the version of the last event forwarded here (set at creation)

    def idle(self) -> bool:
        return not self.members and not self.spectators


class Delivery(Enum):
    """What to do with one published race event (see the module doc)."""

    SKIP = 0  # forwarded already
    HOLD = 1  # a gap fill runs: keep it for after
    PROGRESS = 2  # to every member but the mover, and the spectators
    ALL = 3  # to everyone here
    SNAPSHOT = 4  # to everyone here, then update the room from it
    END = 5  # to everyone here, then close the room


def deliver(room: Room[M], t: str, ver: int) -> Delivery:
    """Where one published event of type `t` at version `ver` goes; advances `sent`."""
    if ver:
        if ver <= room.sent:
            return Delivery.SKIP
        room.sent = ver
        if ver > room.ver:
            room.ver = ver
    if t == "progress":
        room.dirty = True
        return Delivery.PROGRESS
    if t == "race":
        return Delivery.SNAPSHOT
    if t == "end":
        return Delivery.END
    return Delivery.ALL


def progress_mover(player: str, status: str) -> str | None:
    """The player who does not get a progress event here (they had the ack); a timeout has none."""
    return None if status == PlayerStatus.TIMEOUT else player


def take_local_progress(room: Room[M], ver: int) -> bool:
    """A move made here was stored at `ver`: True if it is the room's next event (send it now)."""
    if ver != room.sent + 1 or room.filling is not None:
        return False
    room.sent = ver
    if ver > room.ver:
        room.ver = ver
    room.dirty = True
    return True


def progress_recipients(room: Room[M], mover: str | None) -> Iterator[M]:
    """Every local member but the mover's connections, then every spectator."""
    for pid, conns in room.members.items():
        if pid != mover:
            yield from conns
    yield from room.spectators


def send_progress(room: Room[M], frame: bytes, mover: str | None) -> None:
    """Hand a progress frame to `progress_recipients` (written as loops: once per move)."""
    for pid, conns in room.members.items():
        if pid != mover:
            for c in conns:
                c.send(frame)
    for c in room.spectators:
        c.send(frame)


class Joined(Enum):
    """How a connection that just became a member catches up, from a race loaded at some version
    (a quick-match seat noticed on the bus: `joined_at`)."""

    SEND = 1  # send it the loaded snapshot (and start): the room forwarded exactly that version
    BUS = 2  # the room has not forwarded that version yet: the bus brings it, in order
    RELOAD = 3  # the room forwarded newer events meanwhile: the loaded snapshot is stale


def joined_at(room: Room[M] | None, ver: int) -> Joined:
    """A snapshot sent next to the room's fan-out must be the version it forwarded last: an
    older one shows versions going backwards, a newer one is followed by its own events."""
    if room is None or room.sent == ver:
        return Joined.SEND
    return Joined.BUS if room.sent < ver else Joined.RELOAD


def seated_spectators(room: Room[M], pids: list[str]) -> list[M]:
    """The spectators whose player has a seat among `pids`: they must stop watching.

    A player may watch a race and then join it (on that connection or another).
    Watching would then show them the other players' boards, that is their own
    deal's stock and face-down cards, and hand them every event twice.
    """
    if not room.spectators:
        return []
    seated = set(pids)
    return [c for c in room.spectators if c.player in seated]


def everyone(room: Room[M]) -> Iterator[M]:
    for conns in room.members.values():
        yield from conns
    yield from room.spectators


def apply_snapshot(
    room: Room[M], status: str, ver: int, pids: list[str], starts_at: int | None, deadline: int | None
) -> bool:
    """A `race` snapshot went by: update the room; True when it says the race just started."""
    was = room.status
    room.status, room.ver, room.pids = status, max(room.ver, ver), pids
    room.starts_at, room.deadline = starts_at, deadline
    room.dirty = True
    return status == RaceStatus.RUNNING and was != RaceStatus.RUNNING


def update(
    room: Room[M], status: str, ver: int, pids: list[str], starts_at: int | None, deadline: int | None
) -> None:
    """A newer copy of the race was loaded here (a request, not the bus)."""
    if ver > room.ver:
        room.status, room.ver, room.pids = status, ver, pids
        room.starts_at, room.deadline = starts_at, deadline


def next_timer(room: Room[M]) -> int | None:
    """When the clock must look at this race next: the countdown's end, or the deadline."""
    if room.status == RaceStatus.COUNTDOWN:
        return room.starts_at
    if room.status == RaceStatus.RUNNING:
        return room.deadline
    return None


def rearm(room: Room[M]) -> tuple[bool, int | None]:
    """(changed, at): whether the local timer must be re-armed, and for when (None: cancel it)."""
    at = next_timer(room)
    if at == room.timer_at:
        return False, at
    room.timer_at = at
    return True, at
