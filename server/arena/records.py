"""The arena store's records: what its calls take and return, and the clock (plain data)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .schedule import Arena
from .scoring import RacePoints, Standing

Clock = Callable[[], int]


def system_clock() -> int:
    """Wall time in ms (the default clock)."""
    return time.time_ns() // 1_000_000


def text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def new_race_id() -> str:
    return "a" + secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class ArenaInfo:
    arena: Arena
    created: int
    finalized: int | None  # ms, once the final standings are recorded
    podium: bool = False  # its podium places are written into the players' records


@dataclass(frozen=True, slots=True)
class Formed:
    """A race formed by pairing: ``players`` in standings order."""

    arena: str
    race: str
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A race's points computed from one read of the standings, not yet written."""

    arena: str
    race: str
    now: int
    points: tuple[RacePoints, ...]
    read: tuple[str, ...]  # each player's standing json as read (the script's check)
    after: tuple[Standing, ...]
    result: dict[str, Any]
    absent: tuple[bool, ...]  # per player of `points`: no move in the race (so withdrawn)


@dataclass(frozen=True, slots=True)
class Applied:
    """``status``: ok (written now), dup (already applied), final (arena frozen), no-race."""

    status: str
    seq: int | None = None
    points: tuple[RacePoints, ...] = ()


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    standing: Standing


@dataclass(frozen=True, slots=True)
class Board:
    """``top`` rows, and ``me`` with the rows ``around`` me (both empty without a player)."""

    count: int
    top: tuple[Row, ...]
    me: Row | None
    around: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Podium:
    """A player's podium place in a finished arena (shown in profiles)."""

    arena: str
    name: str  # the arena's
    game: str
    ends: int
    rank: int
    points: int
    players: int  # in the final standings

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Podium:
        return Podium(**{k: d[k] for k in ("arena", "name", "game", "ends", "rank", "points", "players")})
