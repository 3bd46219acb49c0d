"""Spectator boards: sampled every SPECTATOR_FLUSH, shown SPECTATOR_DELAY late (docs/protocol.md §4, `spectate`).

Sans-I/O: every flush the asyncio layer asks `begin_sample` (positions
changed since the last read began, or no sample kept yet); if so it reads the
positions and hands them to `add_sample` (or, if the read failed, calls
`sample_failed`); then `due_boards` says which
sample, if any, is newly old enough to show. Spectators thus see every
board `delay` ms after it was played, never sooner, and never the same
sample twice.
"""

from __future__ import annotations

from typing import Any

from .room import Room

Boards = list[Any]  # the boards of one sample (BoardView messages)


def begin_sample(room: Room[Any]) -> bool:
    """Whether to read the positions now. The change flag is cleared as the read begins, not
    when it ends: a move made during the read (which may have missed it) asks for another."""
    if room.dirty or not room.samples:
        room.dirty = False
        return True
    return False


def sample_failed(room: Room[Any]) -> None:
    room.dirty = True  # the changes not read yet are still to read


def add_sample(room: Room[Any], now: int, boards: Boards) -> None:
    room.samples.append((now, boards))


def due_boards(room: Room[Any], now: int, delay_ms: int) -> tuple[int, Boards] | None:
    """The newest sample at least `delay_ms` old, if it was not shown yet: (taken at, boards)."""
    cutoff = now - delay_ms
    due = None
    samples = room.samples
    while samples and samples[0][0] <= cutoff:
        due = samples.popleft()
    if due is None:
        return None
    samples.appendleft(due)  # still the latest due sample until a newer one is due
    if room.boards_at == due[0]:
        return None
    room.boards_at = due[0]
    return due
