"""The leftovers sweep: entries of the process-wide indexes that nothing else would ever drop.

Every process, at its start and every LEFTOVERS_SWEEP_S (server/tasks.py `sweep_every`):

- the public index (`races:public`): the races whose record is gone (storage/race_records.py
  `drop_gone_public`: a process that died between an expired lobby's timer and its listing
  left it there, where no read reaches it once newer races are listed);
- the bot request queue (`bots:requests`): the expired requests at its old end
  (storage/bots.py `trim`; a push does it too, but the last requests pushed while no worker
  runs would stay).

The timers (`races:timers`) need no sweep: every member comes due (a countdown's end, a
deadline, a lobby's next look, all within the race's own lifetime), every process's sweeper
ticks the due ones, oldest first, and a tick that finds its race gone drops it
(handlers/clock.py); with no process running, nothing adds any either.
"""

from __future__ import annotations

import logging

from ..storage.bots import BotQueue
from ..tasks import sweep_every
from .runtime import Runtime

log = logging.getLogger("solrace.leftovers")

#: How often each process sweeps: the entries it drops cost a few bytes each, and come only
#: from a process dying between two writes (or a queue no worker pops), so rarely is enough.
LEFTOVERS_SWEEP_S = 600.0


class Leftovers:
    def __init__(self, svc: Runtime, queue: BotQueue) -> None:
        self.svc = svc
        self.queue = queue

    async def sweep(self) -> tuple[int, int]:
        """One sweep: (the gone races unlisted, the stale bot requests dropped)."""
        unlisted = await self.svc.store.drop_gone_public()
        if unlisted:
            log.info("%d gone races dropped from the public index", unlisted)
        dropped = await self.queue.trim()
        if dropped:
            log.info("%d expired bot requests dropped from the queue", dropped)
        return unlisted, dropped

    async def run(self) -> None:
        await sweep_every(self.svc, LEFTOVERS_SWEEP_S, self.sweep, "the leftovers sweep failed")
