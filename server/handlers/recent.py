"""A player's recent races (docs/protocol.md §9 `recent`): written at each race's end, read by `recent`.

- the end's follow-up (server/handlers/clock.py `_after_end`) writes each player's entry
  (server/core/recent.py) into their list (server/storage/recent.py), idempotently;
- a rated race's rating change is written beside its entry once rated
  (server/handlers/rated.py `rate`), whichever comes first;
- ``recent`` reads the asker's own list: there is no way to ask for another player's.

Entries are stored as the wire's `RecentRace` in JSON (fields it does not know are
ignored when read, a field added later needs a default), the rating change as its two
rating maps.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import msgspec

from protocol import messages as m

from ..core import recent as recent_rules
from ..core.races import Race
from ..core.session import Session
from ..storage import Store
from ..storage.recent import RECENT_CAP
from .runtime import Runtime

log = logging.getLogger("solrace.recent")

DEFAULT_LIMIT = 20  # `recent` without `limit`


class RatingChangeRecord(msgspec.Struct, frozen=True):
    """A rated race's rating change as kept beside its entry."""

    before: m.RatingValue
    after: m.RatingValue


async def record_race(store: Store, race: Race) -> None:
    """Put a finished race into each of its (non-bot) players' recent races. Idempotent."""
    entries = recent_rules.entries(race)
    if not entries or race.ended is None:
        return
    values = {pid: msgspec.json.encode(e) for pid, e in entries.items()}
    await store.note_recent(race.race, race.ended, values)


async def record_rating(
    store: Store, rid: str, ended: int, changes: Iterable[tuple[str, m.RatingValue, m.RatingValue]]
) -> None:
    """Put a rated race's rating changes, (player, before, after), beside its entries. Idempotent."""
    values = {pid: msgspec.json.encode(RatingChangeRecord(before, after)) for pid, before, after in changes}
    await store.note_recent(rid, ended, values, rating=True)


def decode(entry: bytes, change: bytes | None) -> m.RecentRace:
    """A stored entry with its rating change, if any (raises msgspec.DecodeError)."""
    race = msgspec.json.decode(entry, type=m.RecentRace)
    if change is None:
        return race
    c = msgspec.json.decode(change, type=RatingChangeRecord)
    return msgspec.structs.replace(race, before=c.before, after=c.after)


class RecentHandlers:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc

    async def recent(self, s: Session, msg: m.Recent) -> m.RecentRaces:
        limit = min(DEFAULT_LIMIT if msg.limit is None else msg.limit, RECENT_CAP)
        races: list[m.RecentRace] = []
        for entry, change in await self.svc.store.recent_races(s.player, limit):
            try:
                races.append(decode(entry, change))
            except msgspec.DecodeError:  # a bad entry hides itself, not the whole list
                log.warning("player %s: an unreadable recent race entry", s.player)
        return m.RecentRaces(rid=msg.rid, races=races)
