"""Matchmaking by rating: forming races from a pool of waiting players (pure, no I/O).

Each waiting player brings their skill estimate μ in the game (the rating's
mean, not the conservative displayed rating: a new account with a wide σ
should meet average players, not the weakest), the moment they joined and
the size of race they want (2 to 8 seats). Players wanting different sizes
never meet.

The window
----------
A player who has waited ``w`` seconds accepts opponents within

    window(w) = min(base + per_s · w, cap)        while w < open_after_s
    window(w) = unlimited                          from w ≥ open_after_s

μ points of their own. With the default ``Curve`` that is 1.25 μ (50 display
points) at once, widening by 0.125 μ (5 display points) a second up to
6.25 μ (250 points) after 40 s; after 90 s anybody will do, since a race with
a far opponent beats no race at all.

Forming races
-------------
``form_races(pool, now_ms)`` goes through the pool longest-waiting first.
For each player not yet placed (the *anchor*) it looks at the players of the
same size still unplaced, in μ order, and takes, among the runs of ``seats``
consecutive players that include the anchor, the one with the smallest μ
spread (highest minus lowest). That run becomes a race if its spread is
within the anchor's window. The anchor has waited longest of its run, so the
run is judged by the widest window of its members: whoever waits longest
sets the tolerance, and close ratings are always preferred over far ones.
The pool is then checked again from the next anchor; players left over wait
for the next call (the server calls it every second or on every arrival).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .rating import MAX_PLAYERS, MIN_PLAYERS


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player in the quick-match pool."""

    player: str
    mu: float
    joined_ms: int
    seats: int
    #: the player's last ``quick`` for this entry, when later than the join (server/ratings/pool.py:
    #: an entry goes stale that long after it, not after the join); None: the join itself
    seen_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Curve:
    """The window (μ points) as a function of the wait (see the module docstring)."""

    base: float = 1.25
    per_s: float = 0.125
    cap: float = 6.25
    open_after_s: float = 90.0


DEFAULT_CURVE = Curve()


def window(wait_ms: int, curve: Curve = DEFAULT_CURVE) -> float:
    """The largest μ spread accepted after waiting ``wait_ms``."""
    wait_s = max(0, wait_ms) / 1000.0
    if wait_s >= curve.open_after_s:
        return math.inf
    return min(curve.base + curve.per_s * wait_s, curve.cap)


def spread(group: Sequence[Waiting]) -> float:
    """Highest minus lowest μ of a group."""
    return max(w.mu for w in group) - min(w.mu for w in group)


def form_races(pool: Sequence[Waiting], now_ms: int, curve: Curve = DEFAULT_CURVE) -> list[list[Waiting]]:
    """The races to start now, each a list of ``seats`` players; the rest keep waiting."""
    for w in pool:
        if not MIN_PLAYERS <= w.seats <= MAX_PLAYERS:
            raise ValueError(f"{w.player} wants {w.seats} seats")
    if len({w.player for w in pool}) != len(pool):
        raise ValueError("a player is twice in the pool")
    races: list[list[Waiting]] = []
    # Per size: the players still free in μ order, and each one's index there
    # (rebuilt only when a race is formed, so a call is O(pool × seats) plus
    # O(pool) per race formed).
    free: dict[int, list[Waiting]] = {}
    for w in sorted(pool, key=lambda w: (w.mu, w.player)):
        free.setdefault(w.seats, []).append(w)
    index = {size: {w.player: i for i, w in enumerate(ws)} for size, ws in free.items()}
    for anchor in sorted(pool, key=lambda w: (w.joined_ms, w.player)):
        n = anchor.seats
        i = index[n].get(anchor.player)
        if i is None or len(free[n]) < n:
            continue
        ws = free[n]
        best: list[Waiting] | None = None
        for start in range(max(0, i - n + 1), min(i, len(ws) - n) + 1):
            run = ws[start : start + n]
            if best is None or spread(run) < spread(best):
                best = run
        if best is not None and spread(best) <= window(now_ms - anchor.joined_ms, curve):
            races.append(best)
            taken = {w.player for w in best}
            free[n] = [w for w in ws if w.player not in taken]
            index[n] = {w.player: k for k, w in enumerate(free[n])}
    return races
