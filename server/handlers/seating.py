"""What becomes of a matched group when its race could not be made.

A group taken out of a casual queue (server/handlers/quick_match.py) or the rated
pool (server/handlers/rated_queue.py) waits for nothing any more: if seating it fails
(a Redis blip, a deal that could not be made) and nothing is done, its players
are out of the queue and in no race, their clients saying "waiting" forever.
Which way out depends on whether the race's commit was applied, which the
failure alone does not say (a commit whose reply was lost may have been, and
one sent on a connection that then failed may still be, later):

- stored: the players sit in it. What `publish_new_race` had left to do after
  the commit (`Lobby.seat_new_race`: the index, the entries' seats, the players'
  seats and `seated` notices, the timer) is done again;
- not stored: nobody sits anywhere, and the entries still hold their seats. The
  caller puts the group back where it waited, with what the entries carried.
  The same read gives the race up (`load_race` with `void`, its `{race:ID}:void`
  mark): a create commit of it that reaches Redis after this stores nothing,
  so the players, back in their queue, are never seated in it too. A retry is
  a new race, with a new id;
- unknown (Redis could not be read, or a stored race's seating could not be
  finished: its players hold its seats all the same, from before its commit):
  the entries' seats are given back, as before this module, and the failure
  is logged. A commit of the race may still be on its way: the same look is
  taken again in the background (`later`), ever less often, until Redis
  answers or no commit could arrive any more (LATE_WITHIN_S): a race not
  stored is then given up, so that it is never made (its players went back
  to where they were); one stored (its commit arrived first) has its seating
  finished, its players seated in it, as for "stored".
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from ..retries import retried, until_answered
from ..storage.race_records import LATE_WITHIN_S
from .lobby import Lobby

log = logging.getLogger(__name__)


class Outcome(enum.Enum):
    STORED = "stored"
    NOT_STORED = "not stored"
    UNKNOWN = "unknown"


async def after_failure(
    lobby: Lobby,
    rid: str,
    players: Sequence[str],
    hold: str = "",
    claims: Mapping[str, Sequence[str]] | None = None,
) -> Outcome:
    """Seating `players` (whose queue entries' seat is `hold`, carrying `claims`; an arena's
    pairing has none) in the new race `rid` failed: find out whether the race was stored and
    finish its seating if so (module docstring), trying a few times (`retried`)."""
    claims = claims or {}
    store = lobby.svc.store

    async def look() -> Outcome:
        _now, race = await store.load_race(rid, void=True)
        if race is None:
            return Outcome.NOT_STORED
        now = await store.time_ms()
        await lobby.seat_new_race(race, lobby.new_race_timer(race, now), hold, claims)
        return Outcome.STORED

    outcome = await retried(look, f"could not tell whether race {rid} was stored for its group", log)
    if outcome is not None:
        return outcome
    await give_back(lobby, players, hold, claims)
    lobby.svc.spawn(later(look, rid))
    return Outcome.UNKNOWN


async def later(look: Callable[[], Awaitable[Outcome]], rid: str) -> None:
    """`look` again once Redis answers (module docstring, "unknown"): one task per failure, ended
    by its answer, LATE_WITHIN_S or the server's stop."""
    outcome = await until_answered(
        look, LATE_WITHIN_S, f"race {rid} could not be given up: Redis never answered", log
    )
    if outcome is not None:
        log.warning("race %s, its group's seating unknown, is found %s", rid, outcome.value)


async def give_back(
    lobby: Lobby, players: Sequence[str], hold: str, claims: Mapping[str, Sequence[str]]
) -> None:
    """The entries of `players` are gone for good: their seats go with the claims they carried."""
    for pid in players if hold else ():
        try:
            await lobby.svc.store.drop_claims(pid, hold, claims.get(pid, ()))
        except Exception as exc:  # its reservation lapses at its deadline
            lobby.svc.failed("could not give back a queue entry's seat", exc)
