"""The typed requests of races and watching: one method each."""

from __future__ import annotations

import time

from protocol import messages as m

from .board import Board
from .tracking import RaceTracking


class Calls(RaceTracking):
    """One typed method per request of races and watching (docs/protocol.md §2–4)."""

    async def ping(self) -> m.Pong:
        """Round trip; also updates `clock_offset_ms` (server minus local)."""
        t0 = time.time() * 1000
        pong: m.Pong = await self.request(m.Ping())
        t1 = time.time() * 1000
        self.clock_offset_ms = pong.time - (t0 + t1) / 2
        return pong

    async def create(
        self, game: str, seats: int = m.DEFAULT_SEATS, time_limit_s: int | None = None, private: bool = False
    ) -> m.RaceSnapshot:
        """A new race; `time_limit_s` None: the server's default clock (TIME_LIMIT_S)."""
        snap: m.RaceSnapshot = await self.request(
            m.Create(game=game, seats=seats, time_limit_s=time_limit_s, private=private)
        )
        return snap

    async def join(self, race: str, invite: str | None = None) -> m.RaceSnapshot:
        """Take a seat; a private race needs its `invite` (from its link)."""
        snap: m.RaceSnapshot = await self.request(m.Join(race=race, invite=self._invite(race, invite)))
        return snap

    async def leave(self, race: str) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Leave(race=race))
        self.boards.pop(race, None)
        return snap

    async def ready(self, race: str, ready: bool = True) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Ready(race=race, ready=ready))
        return snap

    async def start(self, race: str) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Start(race=race))
        return snap

    async def quick(self, game: str, seats: int = m.DEFAULT_SEATS) -> m.Queued:
        queued: m.Queued = await self.request(m.Quick(game=game, seats=seats))
        return queued

    async def unqueue(self, game: str) -> m.Ok:
        ok: m.Ok = await self.request(m.Unqueue(game=game))
        return ok

    async def replay(self, race: str, invite: str | None = None) -> m.ReplayData:
        replay: m.ReplayData = await self.request(m.Replay(race=race, invite=self._invite(race, invite)))
        return replay

    async def races(self, game: str | None = None) -> m.RaceList:
        listing: m.RaceList = await self.request(m.Races(game=game))
        return listing

    async def spectate(self, race: str, invite: str | None = None) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Spectate(race=race, invite=self._invite(race, invite)))
        self.spectating.add(race)
        return snap

    async def unspectate(self, race: str) -> m.Ok:
        self.spectating.discard(race)
        ok: m.Ok = await self.request(m.Unspectate(race=race))
        return ok

    def board(self, race: str) -> Board:
        """This player's board in `race` (KeyError if the client has none)."""
        return self.boards[race]
