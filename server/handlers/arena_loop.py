"""The per-process arena loop: scheduled arenas, pairing into races, results.

Every process runs it (every ``arena_tick_ms``); the arena store's scripts
make that safe: pairing is atomic (a player lands in one race), applying a
result is exactly-once, finalizing is idempotent. Each tick, for every arena
not yet finalized:

- ``tick`` pairs its free players; each group formed here becomes a normal
  public race under the id the store gave it, seated and notified as a
  quick-match group is (``QuickMatch.seat_group``); a group whose race could not
  be created is released (its players are free again), one whose race was stored
  before the failure is seated in it all the same;
- now and then (``REPAIR_EVERY`` ticks) its formed races are checked: one
  that finished without its result applied (the process that ended it died
  in between) is applied here; one never created is released, and given up
  (``Store.load_race`` with ``void``): its creation can no longer be stored.

The end of a race reaches ``race_ended`` through the service's end hooks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from protocol.messages import RaceStatus
from protocol.rules import GAMES

from ..arena import (
    Arena,
    ArenaInfo,
    ArenaStore,
    Formed,
)
from ..arena import keys as arena_keys
from ..arena.schedule import HOUR_MS, parse_schedule, status
from . import seating

if TYPE_CHECKING:  # pragma: no cover
    from ..core.races import Race
    from ..service import Service

log = logging.getLogger("solrace.arena")

SCHEDULE_EVERY_MS = 60_000  # how often the scheduled arenas of the next hour are created
REPAIR_EVERY = 5  # ticks between two checks of the formed races
LOST_AFTER_MS = 30_000  # a formed race with no race record this long after forming is released
SEAT_AT_ONCE = 32  # races of one pairing created at the same time


def berserk_players(race: Race) -> list[str]:
    """The players who berserked in `race`, as the race says: it takes the berserk before the
    arena records it (handlers/arena.py `berserk`), so a record lost between the two (a Redis
    blip, a shutdown) still scores when the race is applied; once it started, the record
    could never be written again."""
    return [p.player for p in race.players if p.berserk]


class ArenaLoop:
    def __init__(self, service: Service, store: ArenaStore, dirty: set[str]) -> None:
        self.service = service
        self.store = store
        self.dirty = dirty  # the handlers' arenas to send again to their watchers
        self.schedule = parse_schedule(service.settings.arena_schedule, list(GAMES))
        self.active: list[ArenaInfo] = []  # refreshed every tick
        self.scheduled_at = 0  # when the schedule was last expanded (ms)
        self.ticks = 0

    @staticmethod
    def channel(arena_id: str) -> str:
        return arena_keys.channel(arena_id)

    async def run(self) -> None:
        svc = self.service
        failed = 0
        while not svc.stopping:
            await asyncio.sleep(svc.settings.arena_tick_ms / 1000)
            try:
                await self.tick()
            except Exception as exc:
                failed += 1
                if failed == 1:
                    self.service.failed("arena tick failed", exc)
                continue
            failed = 0

    async def tick(self) -> None:
        now = self.service.now_ms()
        if now - self.scheduled_at >= SCHEDULE_EVERY_MS:
            await self.store.ensure_scheduled(self.schedule, now, now + HOUR_MS)
            self.scheduled_at = now
        self.active = await self.store.active()
        self.ticks += 1
        repair = self.ticks % REPAIR_EVERY == 0
        for info in self.active:
            try:
                await self.tick_arena(info, repair)
            except Exception as exc:
                self.service.failed(f"arena {info.arena.id}: tick failed", exc)

    async def tick_arena(self, info: ArenaInfo, repair: bool) -> None:
        arena = info.arena
        if repair and status(arena, self.service.now_ms()) != "upcoming":
            await self.repair(arena.id)
        groups = await self.store.tick(arena)
        if groups:
            # Seated side by side: a pairing of hundreds of free players forms dozens of races at
            # once, and one after the other their creation would keep the last waiting for seconds.
            gate = asyncio.Semaphore(SEAT_AT_ONCE)
            await asyncio.gather(*(self.seat(arena, formed, gate) for formed in groups))
            self.dirty.add(arena.id)

    async def seat(self, arena: Arena, formed: Formed, gate: asyncio.Semaphore) -> None:
        """Create a formed race and seat its players. If that fails, release it (its players
        free to be paired again) only if the race was not stored: one that was has its players
        seated after all (server/handlers/seating.py), and one Redis cannot tell about is left
        to `repair`, which releases it once it is clearly lost."""
        async with gate:
            try:
                await self.service.quick_match.seat_group(
                    arena.game, list(formed.players), arena.time_limit_s, formed.race, arena=arena.id
                )
            except Exception:
                outcome = await seating.after_failure(self.service.lobby, formed.race, list(formed.players))
                log.warning(
                    "arena %s: seating race %s failed (the race %s)",
                    arena.id,
                    formed.race,
                    outcome.value,
                    exc_info=True,
                )
                if outcome is seating.Outcome.NOT_STORED:
                    await self.store.release(arena.id, formed.race)

    async def repair(self, arena_id: str) -> None:
        """Apply the finished races whose end hook never ran; release the races never created."""
        store = self.service.store
        now = self.service.now_ms()
        for rid, formed in (await self.store.formed(arena_id)).items():
            lost = now - int(formed["formed"]) > LOST_AFTER_MS
            # A lost race is given up as it is read (seating.py): its creation, still on its way
            # from a failed seating, would seat the players released here in it too.
            _now, race = await store.load_race(rid, void=lost)
            if race is None:
                if lost:
                    log.warning("arena %s: formed race %s never created; releasing it", arena_id, rid)
                    await self.store.release(arena_id, rid)
            elif race.status == RaceStatus.FINISHED:
                await self.apply(arena_id, rid, list(race.ranking or []), berserk_players(race))

    async def race_ended(
        self, rid: str, ranking: Sequence[Mapping[str, Any]], berserked: Sequence[str] = ()
    ) -> None:
        """The race `rid` ended with this ranking (`berserked`: its players who berserked,
        `berserk_players`): if it is an arena's, apply it."""
        arenas = self.active or await self.store.active()
        for info in arenas:
            if await self.store.has_race(info.arena.id, rid):
                await self.apply(info.arena.id, rid, ranking, berserked)
                return

    async def apply(
        self, arena_id: str, rid: str, ranking: Sequence[Mapping[str, Any]], berserked: Sequence[str] = ()
    ) -> None:
        out = await self.store.apply(arena_id, rid, ranking, berserked)
        if out.status == "ok":
            self.dirty.add(arena_id)
        elif out.status not in ("dup", "final"):
            log.warning("arena %s: result of race %s not applied: %s", arena_id, rid, out.status)
