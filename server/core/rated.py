"""The rules of rated races that are plain logic (docs/protocol.md §9; ratings: server/ratings).

- a rated seat records the account's login session (the rating wants
  distinct sessions), so joining a rated race is ``races.join`` plus that;
- a finished rated race gives the rating its players as (player, session,
  rank), from the race's final ranking;
- a rated race stays *pending* until rated: ``check_at`` says when it is
  worth looking at again (any process rates a pending race that has ended,
  in case the process that ended it died before rating it).
"""

from __future__ import annotations

from . import races as R

REPAIR_GRACE_MS = 60_000  # after its deadline, a rated race still pending is rated by any process
LOBBY_RECHECK_MS = 300_000  # a rated race still in its lobby is looked at again this much later


def seat(race: R.Race, player: str, name: str, session: str) -> R.Race:
    """``races.join`` for a rated race (an account's seat): it also records the login session."""
    new = R.join(race, player, name, account=True)
    if new is race:
        return race
    p = new.seat_of(player)
    assert p is not None
    p.session = session
    return new


def entrants(race: R.Race) -> list[tuple[str, str, int]]:
    """(player, session, rank) of each player of a finished race, in ranking order.

    A seat without a recorded session (its pool entry's session had expired)
    stands for itself: the accounts of a rated race are distinct anyway.
    """
    session = {p.player: p.session for p in race.players}
    return [
        (row["player"], session.get(row["player"]) or "seat:" + row["player"], int(row["rank"]))
        for row in race.ranking or []
    ]


def check_at(race: R.Race, now: int) -> int:
    """When a pending rated race is worth looking at (again): a while after its
    deadline (its end is rated by then unless its ending process died), or
    later again while it waits in its lobby."""
    if race.deadline is not None:
        return max(race.deadline + REPAIR_GRACE_MS, now + REPAIR_GRACE_MS)
    return now + LOBBY_RECHECK_MS
