"""The clock of races: countdown ends and deadlines (docs/protocol.md §3).

Every process runs a sweeper over the stored timers (the backstop), plus an
exact local timer for each race it holds (server/service.py). `tick` does
what `core.races.due` says for one race; transitions are compare-and-set
commits, so several processes ticking the same race move it once.
"""

from __future__ import annotations

import asyncio
import logging

from protocol import messages as m
from protocol import rules
from protocol.messages import PlayerStatus

from ..core import races as R
from ..core.frames import progress
from ..storage import OUTAGE, Conflict, encode_position
from .lobby import ttl
from .runtime import Runtime

log = logging.getLogger("solrace.clock")

encode = m.encode


class Clock:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.ticking: set[str] = set()

    async def tick(self, rid: str) -> None:
        """Do what the clock says for this race (idempotent; any process may call it)."""
        svc = self.svc
        if rid in self.ticking or svc.stopping:
            return
        self.ticking.add(rid)
        try:
            for _attempt in range(20):
                now, race = await svc.store.load_race(rid)
                if race is None:
                    await svc.store.schedule(rid, None)
                    return
                what = R.due(race, now)
                try:
                    if what == "start":
                        await self._begin(race, now)
                    elif what == "end":
                        await self._end(race, now)
                    else:
                        await svc.store.schedule(rid, R.next_timer(race))
                        return
                except Conflict:
                    continue
        finally:
            self.ticking.discard(rid)

    async def _begin(self, race: R.Race, now: int) -> None:
        dealt = rules.deal(race.game, race.seed)
        new = R.begin(race, dealt.cards_home)
        new.ver = race.ver + 1
        fields = {
            "n": 0,
            "home": dealt.cards_home,
            "status": PlayerStatus.PLAYING,
            "at": new.starts_at,
            "pos": encode_position(dealt),
            "last": "",
            "rev": "",
            "mt": new.starts_at,
        }
        players = {p.player: fields for p in new.players}
        await self.svc.store.commit(
            race.ver,
            new,
            encode(m.RaceSnapshot(**R.snapshot(new))),
            players=players,
            ttl_ms=ttl(self.svc.settings, new, now),
            extra_live=len(new.players),
        )
        await self.svc.store.schedule(race.race, new.deadline)

    async def _end(self, race: R.Race, now: int) -> None:
        svc = self.svc
        store = svc.store
        logs = await store.move_logs(race)
        new = R.end(
            race,
            now,
            {pid: [(at, home) for at, home, _mv in rows] for pid, rows in logs.items()},
            rules.deal(race.game, race.seed).cards_home,
        )
        # Each player stopped by the clock gets a progress event (status timeout), then the end.
        before = {p.player: p.status for p in race.players}
        stopped = [p for p in new.players if before[p.player] != p.status]
        events = [
            progress(race.race, race.ver + i + 1, p.player, p.n, p.home, race.total, p.status, p.at or now)
            for i, p in enumerate(stopped)
        ]
        new.ver = race.ver + len(events) + 1
        seed = None if new.sealed else new.seed
        ranking = [m.RankEntry(**e) for e in new.ranking or []]
        events.append(encode(m.End(race=race.race, ver=new.ver, seed=seed, ranking=ranking)))
        players: dict[str, dict[str, object]] = {p.player: {"status": p.status, "at": p.at} for p in stopped}
        await store.commit(race.ver, new, events, players=players, ttl_ms=ttl(svc.settings, new, now))
        svc.metrics.races_finished += 1
        await store.schedule(race.race, None)
        await store.index(race.race, None)
        for p in new.players:
            await store.remove_seat(p.player, race.race)
        for hook in svc.end_hooks:  # once per race: only the process whose commit won gets here
            try:
                await hook(new, logs)
            except Exception:
                log.exception("end hook failed for race %s", race.race)

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
                if failed == 1:
                    log.warning("deadline sweep failed: %s", exc, exc_info=not isinstance(exc, OUTAGE))
                continue
            if failed:
                log.info("deadline sweep back after %d failed sweeps", failed)
                failed = 0
