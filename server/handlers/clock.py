"""The clock of races: countdown ends and deadlines (docs/protocol.md §3).

Every process runs a sweeper over the stored timers (the backstop), plus an
exact local timer for each race it holds (server/service.py). `tick` does
what `core.races.due` says for one race; transitions are compare-and-set
commits, so several processes ticking the same race move it once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from protocol import messages as m
from protocol.messages import RaceStatus

from ..core import races as R
from ..core import transitions
from ..core.transitions import Transition
from ..storage import Conflict, encode_position, is_outage
from .lobby import ttl
from .recent import record_race
from .runtime import Runtime

log = logging.getLogger("solrace.clock")

encode = m.encode

# A tick asked for by a change or a local timer is retried after 0.1, 0.2, 0.4 ... s, at most 5 s apart,
# for about a minute in all; the sweeper's deadline timer stays the backstop after that.
TICK_NOW_ATTEMPTS = 16
TICK_NOW_RETRY_S = 0.1
TICK_NOW_MAX_WAIT_S = 5.0

# What follows a race's end (seats freed, unlisted, end hooks, timer removed) is done by the
# process whose end commit won. If that process dies on the way, the race's timer is still
# stored, and a tick this long after the end does it instead (every step is idempotent).
AFTER_END_GRACE_MS = 10_000
# A follow-up whose recent-races write failed is done again later, less often the longer it
# has failed (half the time since the end, within these bounds): an outage is retried within
# a minute, and a write that keeps failing (a bug) costs one try and one log line an hour
# instead of one per sweep.
AFTER_END_RETRY_MIN_MS = 60_000
AFTER_END_RETRY_MAX_MS = 3_600_000


class Clock:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.ticking: set[str] = set()
        # Races asked to tick while their tick was running: that tick may have read the race
        # before the change that asked (a finish that leaves nobody playing), so it runs again.
        self.again: set[str] = set()
        # A race in its lobby whose timer is due: a public lobby's away clock (handlers/presence.py).
        self.lobby_check: Callable[[R.Race, int], Awaitable[None]] | None = None

    async def tick(self, rid: str) -> None:
        """Do what the clock says for this race (idempotent; any process may call it)."""
        svc = self.svc
        if svc.stopping:
            return
        if rid in self.ticking:
            self.again.add(rid)
            return
        self.ticking.add(rid)
        try:
            while True:
                self.again.discard(rid)
                await self._tick(rid)
                if rid not in self.again or svc.stopping:
                    return
        finally:
            self.ticking.discard(rid)
            self.again.discard(rid)

    async def tick_now(self, rid: str) -> None:
        """A tick asked for by a change (nobody is playing any more) or by the race's local
        timer (its countdown or deadline is due), retried until it runs.

        The race's stored timer is its deadline, possibly minutes away: if this tick failed
        (Redis unreachable for a moment), nothing else would end the race before then.
        """
        svc = self.svc
        for attempt in range(TICK_NOW_ATTEMPTS):
            try:
                await self.tick(rid)
                return
            except Exception as exc:
                if svc.stopping:
                    return
                svc.failed(f"tick of race {rid} failed (attempt {attempt + 1})", exc)
                await asyncio.sleep(min(TICK_NOW_RETRY_S * 2**attempt, TICK_NOW_MAX_WAIT_S))

    async def _tick(self, rid: str) -> None:
        svc = self.svc
        for _attempt in range(20):
            now, race = await svc.store.load_race(rid)
            if race is None:  # expired (a lobby after --lobby-ttl-s): its listing goes too
                await svc.store.schedule(rid, None)
                await svc.store.index(rid, None)
                return
            if race.status == RaceStatus.FINISHED:
                await self._after_end_left_over(race, now)
                return
            what = R.due(race, now)
            try:
                if what == "start":
                    await self._begin(race, now)
                elif what == "end":
                    await self._end(race, now)
                elif what == "timeout":
                    await self._time_out(race, now)
                elif race.status == RaceStatus.LOBBY and self.lobby_check is not None:
                    await self.lobby_check(race, now)
                    return
                else:
                    await self._set_timer(rid, now, R.next_timer(race))
                    return
            except Conflict:
                continue

    async def _commit(self, old: R.Race, t: Transition, now: int) -> None:
        """Write a transition if the race is still at `old`'s version (else `Conflict`)."""
        players = t.players
        if t.deal is not None:  # the start: every player's game begins at the deal
            pos = encode_position(t.deal)
            players = {pid: {**fields, "pos": pos, "pn": 0} for pid, fields in players.items()}
        await self.svc.store.commit(
            old.ver,
            t.race,
            t.events,
            players=players,
            ttl_ms=ttl(self.svc.settings, t.race, now),
            extra_live=t.live,
        )

    async def _begin(self, race: R.Race, now: int) -> None:
        t = transitions.start(race)
        await self._commit(race, t, now)
        await self._set_timer(race.race, now, t.timer)

    async def _time_out(self, race: R.Race, now: int) -> None:
        t = transitions.stop_out_of_time(race, now)
        await self._commit(race, t, now)
        await self._set_timer(race.race, now, t.timer)

    async def _set_timer(self, rid: str, now: int, at: int | None) -> None:
        """The race's next timer after a tick that read it at `now`, but never later than a
        timer set in the future since (the end check of a winning move or a finish, which
        another process may have set between this tick's read and this write, and died
        after), nor none instead of it: reschedule.lua."""
        await self.svc.store.reschedule(rid, now, at)

    async def _end(self, race: R.Race, now: int) -> None:
        svc = self.svc
        store = svc.store
        logs = await store.move_logs(race)
        t = transitions.end(race, now, logs)
        # A timer no later than the grace: if this process dies after the commit, a sweep
        # does the follow-up then (a race ended before its deadline would wait for it).
        await store.schedule_sooner(race.race, now + AFTER_END_GRACE_MS)
        await self._commit(race, t, now)
        svc.metrics.races_finished += 1
        await self._after_end(t.race, logs)

    async def _after_end(self, race: R.Race, logs: dict[str, list[tuple[int, int, str]]]) -> None:
        """Free the seats, unlist the race, put it in its players' recent races, run the end
        hooks, and last remove its timer: until then a later tick can do it all again
        (`_after_end_left_over`)."""
        store = self.svc.store
        await store.index(race.race, None)
        for p in race.players:
            await store.remove_seat(p.player, race.race)
        # Before the hooks, so that a player who asks `recent` on `end` soon finds the race.
        # Idempotent; if it fails the hooks still run now, and the timer stays so that the
        # whole follow-up is done again (the hooks are idempotent too) until it is written.
        recorded = True
        try:
            await record_race(store, race)
        except Exception as exc:
            recorded = False
            self.svc.failed(f"race {race.race}: recent races not written (done again later)", exc)
        for hook in self.svc.end_hooks:  # each is idempotent: a left-over end may run it again
            try:
                await hook(race, logs)
            except Exception:
                # Done again later with the rest (a daily result must reach its board).
                recorded = False
                log.exception("end hook failed for race %s (done again later)", race.race)
        if recorded:
            await store.schedule(race.race, None)
            return
        # now_ms() estimates Redis' clock and may lag it by a reply's latency: never before the
        # end Redis stamped, so that the retry comes a whole minute after it.
        now = max(self.svc.now_ms(), race.ended or 0)
        wait = min(max((now - (race.ended or now)) // 2, AFTER_END_RETRY_MIN_MS), AFTER_END_RETRY_MAX_MS)
        try:
            await store.schedule(race.race, now + wait)
        except Exception:  # Redis is out: the timer stays where it was, due at the next sweeps
            pass

    async def _after_end_left_over(self, race: R.Race, now: int) -> None:
        """A finished race ticked: if its timer is still stored a grace after its end, the
        process that ended it died before the follow-up; do it here."""
        store = self.svc.store
        at = await store.scheduled_at(race.race)
        if at is None:
            return
        if now - (race.ended or 0) < AFTER_END_GRACE_MS:
            # The ending process is (most likely) still at it. Its timer may be early (a move
            # that ended the race lowered it, play.py `_end_check`): back at the grace's end,
            # not ticked on every sweep till then; XX: never re-added once it is done.
            await store.schedule_later(race.race, (race.ended or now) + AFTER_END_GRACE_MS)
            return
        log.warning(
            "race %s ended without its follow-up (its process died, or a write failed); doing it now",
            race.race,
        )
        await self._after_end(race, await store.move_logs(race))

    async def sweeper(self) -> None:
        """Backstop of the local timers: fire every due countdown end and deadline in Redis."""
        svc = self.svc
        failed = 0  # sweeps failed in a row: a Redis outage logs once, not every sweep
        while not svc.stopping:
            await asyncio.sleep(svc.settings.sweep_ms / 1000)
            try:
                for rid in await svc.store.due_races(svc.now_ms()):
                    await self.tick(rid)
            except Exception as exc:
                failed += 1
                # A Redis outage goes into the process's one outage line (a redis-server that
                # comes up between two crashes must not log it again); a fault once per streak.
                if failed == 1 or is_outage(exc):
                    svc.failed("deadline sweep failed", exc)
                continue
            if failed:
                log.info("deadline sweep back after %d failed sweeps", failed)
                failed = 0
