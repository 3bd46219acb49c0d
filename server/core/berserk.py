"""Berserk: an arena player takes half the clock of one race (docs/arenas.md §2).

The race keeps one deadline; a berserk player has their own, half the clock
after the start (`races.own_deadline`): their moves are refused after it, and
the clock stops them there (`time_out`) while the others play on.
"""

from __future__ import annotations

from protocol.messages import ErrorCode

from . import races as R


def berserk(race: R.Race, player: str) -> R.Race:
    """An arena player takes half the clock before the start (the arena decides whether
    they may; docs/arenas.md). Berserking twice is a no-op (returns the race unchanged)."""
    p = race.seat_of(player)
    if p is None:
        raise R.RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    if race.status not in (R.LOBBY, R.COUNTDOWN):
        raise R.RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if p.berserk:
        return race
    r = race.copy()
    q = r.seat_of(player)
    assert q is not None
    q.berserk = True
    return r


def time_out(race: R.Race, now: int) -> R.Race:
    """Stop the players whose own clock ran out (`timeout` at their own deadline)."""
    if race.status != R.RUNNING:
        raise R.RaceError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
    r = race.copy()
    for p in r.players:
        if R.out_of_time(r, p, now):
            p.status, p.at = R.TIMEOUT, R.own_deadline(r, p)
    return r
