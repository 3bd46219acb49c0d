"""Who waits in a public lobby (core/presence.py): the race list's filter and the away clock.

A public lobby none of whose seated persons has a live connection on any process is left
out of `race_list` at once, and emptied once that has lasted `--lobby-away-ms` (its
seats given back, unlisted, no longer counted against its creator's address). The clock
is the race's timer in Redis (`races:timers`), ticked by any process's sweeper
(handlers/clock.py calls `check`): a process that dies takes no lobby's clock with it,
and its connections stop counting once their counts lapse (storage/sessions.py).

Nothing is given back while one of the lobby's people is connected: the release reads
their presence again just before its compare-and-set, and a hello or join of one of them
deletes the lobby's away mark (so a return between two ticks restarts the grace).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..core import presence as P
from ..core import races as R
from ..core.session import Session
from .lobby import Lobby
from .runtime import Runtime

log = logging.getLogger("solrace.presence")


class LobbyPresence:
    def __init__(self, svc: Runtime, lobby: Lobby) -> None:
        self.svc = svc
        self.lobby = lobby

    async def hidden(self, loaded: Sequence[R.Race | None | BaseException]) -> set[str]:
        """The unattended lobbies among races the list loaded. Each gets a timer if it has
        none (a lobby stored before its timer was, by a process that died then), so that
        its away clock runs."""
        lobbies = [r for r in loaded if isinstance(r, R.Race) and P.watched(r)]
        if not lobbies:
            return set()
        store = self.svc.store
        connected = await store.sessions.connected([pid for r in lobbies for pid in P.people(r)])
        hidden = P.hidden(lobbies, connected)
        await store.schedule_if_none(hidden, self.svc.now_ms())
        return hidden

    async def check(self, race: R.Race, now: int) -> None:
        """The tick of a race in its lobby (handlers/clock.py): look at who is there, and
        release the lobby or look again later."""
        store = self.svc.store
        rid = race.race
        # Timers below as every tick writes them (reschedule.lua): never over one set in the
        # future since this read (a countdown started meanwhile on another process).
        if not P.watched(race):
            if not race.players and not race.private:  # emptied: off the list (idempotent)
                await store.index(rid, None)
            await store.reschedule(rid, now, None)
            return
        away_ms = self.svc.settings.lobby_away_ms
        connected = await store.sessions.connected(P.people(race))
        since = None
        if P.unattended(race, connected):
            since = await store.away_since(rid, now, self.svc.settings.lobby_ttl_s * 1000)
        step = P.step(race, connected, since, now, away_ms)
        if not step.mark:
            # Someone is here: a mark set by a tick that read the counts just before their
            # hello wrote them must not shorten their next absence.
            await store.clear_away(rid)
        if step.release:
            await self._release(race, now)
        else:
            await store.reschedule(rid, now, step.next_at)

    async def _release(self, race: R.Race, now: int) -> None:
        """Give back every seat of a lobby found unattended for the whole grace."""
        store = self.svc.store
        rid = race.race
        away_ms = self.svc.settings.lobby_away_ms
        seated = [p.player for p in race.players]
        if await store.sessions.connected(P.people(race)):  # came back since the tick's read
            await store.reschedule(rid, now, now + away_ms)
            return
        released = False  # by this call's commit (not found so by another process)

        def release(r: R.Race, _now: int) -> R.Race:
            nonlocal released
            out = P.release(r, seated)
            released = out is not r
            return out

        after = await self.lobby.mutate(rid, release)
        if after.players:  # changed since (a join): the next tick decides again
            await store.schedule_ahead(rid, self.svc.now_ms())
            return
        if released:
            self.svc.metrics.lobbies_released += 1
            log.info("race %s: nobody waited in its lobby for %d ms; its seats were given back", rid, away_ms)
        for pid in seated:  # what `_leave` does after its commit, for every seat at once
            await store.remove_seat(pid, rid)
            self.lobby.part(pid, after)  # a bot's connection here is told
        await store.index(rid, None)
        await store.clear_away(rid)
        await store.reschedule(rid, now, None)

    async def came_back(self, s: Session, races: Sequence[R.Race]) -> None:
        """`s` said hello, seated in these races: if it is one of their people (not a bot), the
        away clocks of the public lobbies among them start again (a join does it in `Lobby`)."""
        back = [r.race for r in races if P.watched(r) and s.player in P.people(r)]
        if back:
            await self.svc.store.clear_away(*back)

    def last_connection_closed(self, s: Session) -> None:
        """`s` was its player's last connection here: each public lobby it sat in is looked at
        soon (SETTLE_MS), not a whole grace later: its away clock starts about when it was left."""
        rids = [
            rid for rid in s.races if (room := self.svc.local.get(rid)) is not None and room.status == R.LOBBY
        ]
        if rids:
            self.svc.spawn(self._look_soon(rids))

    async def _look_soon(self, rids: list[str]) -> None:
        at = self.svc.now_ms() + P.SETTLE_MS
        for rid in rids:
            await self.svc.store.schedule_ahead(rid, at)
