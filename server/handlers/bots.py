"""Bots (docs/protocol.md §3 "Bots"): seat a bot in a lobby, and a bot for a lonely quick-match.

The server never plays: it mints the bot's identity and queues a request
(server/storage/bots.py); a `solrace bots` worker process (client/bots/service.py)
pops it and plays as an ordinary client. So a search bot never slows the
server's event loop, and the workers bound how many bots run and how much
CPU each move may take.
"""

from __future__ import annotations

import asyncio
import logging

from protocol import messages as m
from protocol.messages import ErrorCode

from ..core import bots as B
from ..core.races import RaceError
from ..core.session import Session
from ..storage import keys
from ..storage.bots import BotQueue, BotRequest
from .lobby import Lobby, race_id
from .runtime import Runtime

log = logging.getLogger("solrace.bots")

# A worker reports its free slots every second while it waits for requests (and at
# once when it takes one); a report older than this is not counted.
WORKER_ALIVE_MS = 5000
DEFAULT_LEVEL = "greedy"
# A request no worker took in this time is dropped by the worker that finally pops it.
REQUEST_TTL_MS = 60_000


class Bots:
    def __init__(self, svc: Runtime, lobby: Lobby) -> None:
        self.svc = svc
        self.lobby = lobby
        self.queue = BotQueue(svc.store.redis)
        self.waiting: set[tuple[str, str, int]] = set()  # (player, game, seats) with a fallback armed

    async def bot(self, s: Session, msg: m.Bot) -> m.Ok:
        rid = race_id(msg.race)
        now, race = await self.svc.store.load_race(rid)
        if race is None:
            raise RaceError(ErrorCode.NO_SUCH_RACE, "no such race")
        B.check_bot_seat(race, s.player)
        if not await self.send_bots(
            1, "race", msg.level or DEFAULT_LEVEL, race.game, now, race=rid, invite=race.invite
        ):
            raise RaceError(ErrorCode.NO_BOTS, "no bot worker has a free slot: retry later")
        return m.Ok(rid=msg.rid)

    async def send_bots(
        self,
        count: int,
        kind: str,
        level: str,
        game: str,
        now: int,
        *,
        race: str = "",
        invite: str = "",
        seats: int = 2,
    ) -> bool:
        """Queue `count` bot requests for the workers, all or none: only if the free slots
        the workers reported cover them beside the requests already waiting (one script,
        so that no two servers promise one slot twice). False: no bot is queued."""
        if count <= 0:
            return True
        if await self.queue.free_slots(now, WORKER_ALIVE_MS) < count:
            return False  # mint no identity for nothing
        requests = [
            await self._request(kind, level, game, now, race=race, invite=invite, seats=seats)
            for _ in range(count)
        ]
        if await self.queue.reserve(requests, now, WORKER_ALIVE_MS):
            return True
        for r in requests:  # another request took the slot meanwhile
            await self.queue.forget_bot(r.player, r.token)
        return False

    async def send_bot(
        self, kind: str, level: str, game: str, now: int, *, race: str = "", invite: str = "", seats: int = 2
    ) -> None:
        """Queue a bot request whatever the free slots (a rematch's bot replacing one of the
        old race: it comes when a worker has a slot, or the request expires)."""
        await self.queue.push(
            await self._request(kind, level, game, now, race=race, invite=invite, seats=seats)
        )

    async def _request(
        self, kind: str, level: str, game: str, now: int, *, race: str = "", invite: str = "", seats: int = 2
    ) -> BotRequest:
        """A new bot identity, and its request for a worker."""
        st = self.svc.settings
        ttl_s = st.bot_wait_s + st.time_limit_max_s + 3600
        pid, token = await self.queue.new_bot(level, B.bot_name(level), ttl_s)
        return BotRequest(
            kind=kind,
            level=level,
            token=token,
            player=pid,
            game=game,
            race=race,
            invite=invite,
            seats=seats,
            expires=now + REQUEST_TTL_MS,
        )

    async def quick(self, s: Session, msg: m.Quick) -> None:
        """Quick-match as the lobby does it; then, if the player still waits alone after
        QUICK_BOT_AFTER_S, bots take the empty seats."""
        await self.lobby.quick(s, msg)
        after = self.svc.settings.quick_bot_after_s
        seats = msg.seats or m.DEFAULT_SEATS  # as the lobby took it
        key = (s.player, msg.game, seats)
        if after > 0 and (msg.game, seats) in s.quick and key not in self.waiting:
            self.waiting.add(key)
            self.svc.spawn(self._quick_fallback(key, after))

    async def _quick_fallback(self, key: tuple[str, str, int], after_s: int) -> None:
        pid, game, seats = key
        queue_key = keys.quick_key(game, seats)
        try:
            await asyncio.sleep(after_s)
            # While the workers have too few free slots (busy, or starting), look again every second.
            for _ in range(self.svc.settings.bot_wait_s):
                if not await self.queue.in_queue(queue_key, pid):
                    return  # seated, or gone
                now = await self.svc.store.time_ms()
                needed = B.quick_bots_needed(seats, await self.queue.queued_players(queue_key))
                if await self.send_bots(needed, "quick", "greedy", game, now, seats=seats):
                    return
                await asyncio.sleep(1)
        finally:
            self.waiting.discard(key)
