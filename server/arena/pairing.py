"""Pairing free players into races (pure).

Input: the arena's *free* players (joined, not in a race), each with their
position in the standings (0 = first) and how long they have waited since
they became free. Output: groups of ``seats`` players, each player in at
most one group.

Rule (docs/arenas.md, "Pairing"):

- Players are lined up in standings order; a candidate group is ``seats``
  players consecutive in that line (so nobody closer in standing is skipped).
  Its *spread* is the difference of standings positions between its first
  and last player.
- A player who has waited ``w`` ms accepts a spread up to
  ``window(w) = base_window + w * widen_per_s / 1000`` positions, and any
  spread once ``w >= max_wait_ms``. A group is acceptable when its spread
  fits the window of its longest-waiting member: waiting buys a wider
  search, so nobody waits long just because the players near them are busy.
- No immediate rematch: a group with two players whose last race was the
  same race is not acceptable, until one of its players has waited
  ``max_wait_ms`` (two players freed by the same race, now next to each
  other in the standings, would otherwise race each other again and again).
- Groups are taken closest first: repeatedly the acceptable group of the
  smallest spread (then the longest wait, then the highest standing) among
  the players still unpaired, until none is acceptable.
- Leftovers: when fewer than ``seats`` players are still unpaired but at
  least ``min_seats``, and one of them has waited ``max_wait_ms``, they race
  together in a smaller race (so a 4-seat arena with 3 free players still
  plays within ``max_wait_ms``).

With the server pairing every ``tick`` ms, a player freed by the end of a
race is in a new race within ``max_wait_ms + tick`` as soon as anyone else
is free.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Free:
    """A free player: ``position`` in the standings (0 = first), ``waited_ms`` since free,
    ``last_race`` the race they last played in this arena ("" for none)."""

    player: str
    position: int
    waited_ms: int
    last_race: str = ""


@dataclass(frozen=True, slots=True)
class Window:
    """How far in standings a waiting player reaches (positions)."""

    base_window: int = 4
    widen_per_s: float = 10.0
    max_wait_ms: int = 3_000

    def reach(self, waited_ms: int) -> float:
        if waited_ms >= self.max_wait_ms:
            return float("inf")
        return self.base_window + max(0, waited_ms) * self.widen_per_s / 1000


def spread(group: Sequence[Free]) -> int:
    """Standings distance between the ends of a group in standings order."""
    return group[-1].position - group[0].position


def rematch(group: Sequence[Free]) -> bool:
    """Two players of ``group`` come from the same race."""
    lasts = [f.last_race for f in group if f.last_race]
    return len(set(lasts)) != len(lasts)


def acceptable(group: Sequence[Free], window: Window) -> bool:
    waited = max(f.waited_ms for f in group)
    if rematch(group) and waited < window.max_wait_ms:
        return False
    return spread(group) <= window.reach(waited)


def pair(
    free: Sequence[Free],
    seats: int,
    window: Window = Window(),
    min_seats: int = 2,
) -> list[list[Free]]:
    """Groups of ``seats`` (see the module doc), each group in standings order.

    Ties in position are broken by player id, so the result depends only on
    the input set.
    """
    if not 2 <= min_seats <= seats:
        raise ValueError(f"need 2 <= min_seats <= seats, got {min_seats}, {seats}")
    if len({f.player for f in free}) != len(free):
        raise ValueError("a player listed twice")
    line = sorted(free, key=lambda f: (f.position, f.player))
    n = len(line)
    # The remaining players as a linked list over `line`; candidate groups in a
    # heap keyed by (spread, longest wait, place in line). A group stays valid
    # while all its players are unpaired (removals never put anyone between
    # them); taking a group only creates the groups that span its gap.
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap: list[tuple[int, int, int, tuple[int, ...]]] = []

    def push(i: int) -> None:
        members: list[int] = []
        j = i
        while j < n and len(members) < seats:
            members.append(j)
            j = nxt[j]
        if len(members) == seats:
            g = [line[k] for k in members]
            if acceptable(g, window):
                heapq.heappush(heap, (spread(g), -max(f.waited_ms for f in g), i, tuple(members)))

    for i in range(n):
        push(i)
    groups: list[list[Free]] = []
    while heap:
        *_, members = heapq.heappop(heap)
        if not all(alive[k] for k in members):
            continue
        groups.append([line[k] for k in members])
        before, after = prv[members[0]], nxt[members[-1]]
        for k in members:
            alive[k] = False
        if before >= 0:
            nxt[before] = after
        if after < n:
            prv[after] = before
        starts: list[int] = []
        j = before
        while j >= 0 and len(starts) < seats - 1:
            starts.append(j)
            j = prv[j]
        for j in starts:
            push(j)
    line = [f for k, f in enumerate(line) if alive[k]]
    if min_seats <= len(line) < seats and max(f.waited_ms for f in line) >= window.max_wait_ms:
        groups.append(line)
    return groups
