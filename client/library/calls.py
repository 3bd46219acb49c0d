"""The typed requests of races and watching: one method each, the solver's included."""

from __future__ import annotations

import time

from protocol import messages as m

from .board import Board
from .tracking import RaceTracking

#: Default reply timeouts of `hint` and `analysis`, seconds: longer than the server's own
#: waits for its solver (HINT_WAIT_S 5 s, ANALYSIS_WAIT_S 20 s; docs/protocol.md §7), after
#: which it answers `solver-busy`, so that a busy solver is told as such, not as a timeout.
HINT_TIMEOUT_S = 15.0
ANALYSIS_TIMEOUT_S = 40.0


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
        self,
        game: str,
        seats: int = m.DEFAULT_SEATS,
        time_limit_s: int | None = None,
        private: bool = False,
        rated: bool = False,
    ) -> m.RaceSnapshot:
        """A new race; `time_limit_s` None: the server's default clock (TIME_LIMIT_S).

        `rated`: a rated race (docs/protocol.md §9): a logged-in account only
        (`not-logged-in`), at least 2 seats, and the server's clock (leave `time_limit_s`
        None: any other value is `bad-message`).
        """
        snap: m.RaceSnapshot = await self.request(
            m.Create(game=game, seats=seats, time_limit_s=time_limit_s, private=private, rated=rated or None)
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

    async def quick(self, game: str, seats: int = m.DEFAULT_SEATS, rated: bool = False) -> m.Queued:
        """Queue for a quick-match race; the formed race's `race` snapshot comes as an event.

        `rated`: the game's rating pool instead of the first-come queue (docs/protocol.md §9:
        matched by rating; a logged-in account only, `not-logged-in`); the reply says
        `rated: true`, and once the race is rated each player gets a `rating` event
        (`messages.RatingChange`). `unqueue(game)` leaves either queue.
        """
        queued: m.Queued = await self.request(m.Quick(game=game, seats=seats, rated=rated or None))
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
        """Watch `race` (§4): its snapshot, then its events. With `reconnect=True` the race
        is watched again after a reconnect, and that reply comes as a `race` event."""
        snap: m.RaceSnapshot = await self.request(m.Spectate(race=race, invite=self._invite(race, invite)))
        self.spectating.add(race)
        return snap

    async def unspectate(self, race: str) -> m.Ok:
        self.spectating.discard(race)
        ok: m.Ok = await self.request(m.Unspectate(race=race))
        return ok

    async def hint(self, race: str, *, timeout: float | None = None) -> m.HintData:
        """The server's player-side search's move for your position in `race` (§3 `hint`).

        `.move` is None when no move helps; `.n` is the move count it is for (a move
        played meanwhile makes it stale). Given only in a running casual race of one
        seat: elsewhere `ServerError` `hints-forbidden` (and `race-not-running`,
        `game-over`, ...). `solver-busy` (`.retry_ms`) is raised as is, never retried
        here: as for `rate-limited`, the caller decides whether to ask again (it is also
        the answer to a third `hint`/`analysis` while two wait on this connection). The
        reply is matched by `rid` (it may overtake or follow others, §1). `timeout`:
        default the larger of the client's and `HINT_TIMEOUT_S`.
        """
        wait = timeout if timeout is not None else max(self.timeout, HINT_TIMEOUT_S)
        hint: m.HintData = await self.request(m.Hint(race=race), timeout=wait)
        return hint

    async def analysis(
        self, race: str, invite: str | None = None, *, timeout: float | None = None
    ) -> m.AnalysisData:
        """Where each player of a finished race lost the win (§3 `analysis`).

        One `PlayerAnalysis` per player, in seat order. Errors as for `replay`
        (`race-not-over` before the end; a private race needs its `invite`), `internal`
        from a server without a solver worker, and `solver-busy` (`.retry_ms`), raised
        as is: the analysis goes on in the server and a later call gets it. `timeout`:
        default the larger of the client's and `ANALYSIS_TIMEOUT_S`.
        """
        wait = timeout if timeout is not None else max(self.timeout, ANALYSIS_TIMEOUT_S)
        data: m.AnalysisData = await self.request(
            m.Analysis(race=race, invite=self._invite(race, invite)), timeout=wait
        )
        return data

    def board(self, race: str) -> Board:
        """This player's board in `race` (KeyError if the client has none)."""
        return self.boards[race]
