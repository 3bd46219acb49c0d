"""Race lifecycle as plain logic over plain data (docs/protocol.md §3 "Races").

No I/O here: the store loads a `Race`, a function below returns the changed
copy (or raises `RaceError` with a protocol error code), and the store commits
it atomically if nobody changed the race meanwhile (compare-and-set on the
race version). That keeps every rule of the lobby, the start, the end and the
ranking testable without Redis or sockets.

The move path is the exception: moves are too frequent for load/compute/CAS,
so they go through one Lua script (server/storage/move.lua, decisions in
server/core/moves.py) that re-checks the few facts it needs (status,
deadline, n) atomically.

This module is the front of that logic, which lives in four modules:
``record`` (the data and `RaceError`), ``lobby`` (before the start),
``lifecycle`` (the clock, the start, the end and its ranking) and
``race_views`` (what the wire sees). Callers use ``races`` for all of it;
the lobby handler's compare-and-set plan is ``lobby.lobby_commit``.

Lifecycle::

    lobby --(all seats taken and ready | host start)--> countdown
    countdown --(now >= starts_at)--> running
    running --(every player won/finished | now >= deadline)--> finished
"""

from __future__ import annotations

from .lifecycle import begin, due, end, next_timer, out_of_time, own_deadline, rank, ttl_ms
from .lobby import host_start, join, leave, new_quick_race, new_race, set_ready
from .race_views import published_proof, snapshot, summary
from .record import (
    COUNTDOWN,
    DECLARED,
    DONE,
    FINISHED,
    LOBBY,
    PLAYING,
    READY,
    RUNNING,
    TIMEOUT,
    WAITING,
    WON,
    Player,
    Race,
    RaceError,
)

__all__ = [
    "COUNTDOWN",
    "DECLARED",
    "DONE",
    "FINISHED",
    "LOBBY",
    "PLAYING",
    "READY",
    "RUNNING",
    "TIMEOUT",
    "WAITING",
    "WON",
    "Player",
    "Race",
    "RaceError",
    "begin",
    "due",
    "end",
    "host_start",
    "join",
    "leave",
    "new_quick_race",
    "new_race",
    "next_timer",
    "out_of_time",
    "own_deadline",
    "published_proof",
    "rank",
    "set_ready",
    "snapshot",
    "summary",
    "ttl_ms",
]
