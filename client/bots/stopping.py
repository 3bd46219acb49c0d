"""How a stopping bot worker ends its tasks (client/bots/service.py): cancelled, and cancelled
again while they run on, within a bound.

A cancel can be lost: on Python 3.11, one that lands as a redis-py call's send completes is
swallowed (`asyncio.wait_for`, in redis-py's `send_packed_command`, returns the send's result
instead), and the task goes on as if never cancelled. The lease keeper, a loop, then never
ended, and neither did the worker's stop. The server's own stop (server/tasks.py
`cancel_and_wait`) does the same with a WARNING per late task; a worker logs nothing until it
gives up, since on a loaded machine a task often outlives its first cancel by a second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("solrace.bots")

# A task that swallows every cancel (a bug) must not hold the worker's stop, and with it its
# process's exit: after this long it is left running. Its bots keep their seats; their leases
# age out.
STOP_GIVE_UP_S = 60.0


async def ended(
    tasks: Sequence[asyncio.Task[Any]], again_s: float, give_up_s: float = STOP_GIVE_UP_S
) -> None:
    """Cancel `tasks` and wait until each has ended, cancelling again every `again_s` those
    still running, for `give_up_s` at most (an ERROR then names those left)."""
    running = {t for t in tasks if not t.done()}
    deadline = time.monotonic() + give_up_s
    while running:
        left = deadline - time.monotonic()
        if left <= 0:
            names = ", ".join(sorted(t.get_name() for t in running))
            log.error(
                "stop: %d task(s) still running after %g s of cancels; stopping without them: %s",
                len(running),
                give_up_s,
                names,
            )
            break
        for t in running:
            t.cancel()
        _, running = await asyncio.wait(running, timeout=min(again_s, left))
    for t in tasks:  # their outcomes read, as a gather would (no "never retrieved" at their collection)
        if t.done() and not t.cancelled():
            t.exception()
