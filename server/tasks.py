"""Stopping background tasks: cancel them, wait, and cancel again those a lost cancel left running.

A cancel can be lost on its way to a task. Python 3.11's `asyncio.wait_for` (asyncio/tasks.py,
`except CancelledError: if fut.done(): return fut.result()`) returns the awaited result instead
of raising `CancelledError` when the task awaiting it is cancelled after the awaited inner task
has finished but before the waiting task woke up (CPython gh-86296; 3.12 builds `wait_for` on
`asyncio.timeout` and raises). redis-py sends every command through
`asyncio.wait_for(self._send_packed_command(...), self.socket_timeout)` when a socket timeout is
set (redis/asyncio/connection.py `AbstractConnection.send_packed_command`), and ours always is
(`--redis-timeout-s`): a stop's cancel that lands in the few event-loop iterations a command
takes to be sent is dropped there, the command's reply is read and returned, and the task goes
on to its next await (a sweep's sleep of minutes, say) as if no stop had come
(tests/server/test_service_stop.py shows it against a real Redis).

The server's own code, and the clients', bounds its waits with `asyncio.timeout`, which raises
the cancel, never with `asyncio.wait_for` (tests/server/test_service_stop.py checks both). The library's are out of
reach, so a stop does not trust one cancel: it waits `TASK_STOP_GRACE_S` for the tasks it cancelled,
cancels those still running again, naming them in the log, and after `TASK_STOP_CANCELS`
cancels goes on without the ones that are left (named too), instead of waiting for them for ever.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

log = logging.getLogger("solrace.service")

#: How long a stop waits for the tasks it has cancelled before it cancels again those still
#: running (a lost cancel, or a task's own clean-up slower than this: it is cut short like a
#: crash would cut it, which every background task must survive anyway).
TASK_STOP_GRACE_S = 1.0
#: How many times a stop cancels a task, the first time included; one still running
#: `TASK_STOP_GRACE_S` after the last cancel is left behind (logged) and the stop goes on.
TASK_STOP_CANCELS = 3


def task_name(coro: object) -> str:
    """A task's name for the log: its coroutine's qualified name (`DailyHandlers.finalizer`)."""
    return str(getattr(coro, "__qualname__", type(coro).__name__))


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
    """Cancel `tasks` and wait until they end, cancelling again those a cancel did not end
    (module docstring). Returns the tasks left running; their exceptions are not retrieved here
    (the spawner's done callback logs them)."""
    running = {t for t in tasks if not t.done()}
    for cancels in range(1, TASK_STOP_CANCELS + 1):
        if not running:
            break
        for t in running:
            t.cancel()
        _done, running = await asyncio.wait(running, timeout=TASK_STOP_GRACE_S)
        if not running:
            break
        names = ", ".join(sorted(t.get_name() for t in running))
        if cancels < TASK_STOP_CANCELS:
            log.warning(
                "stop: %d task(s) still running %g s after cancel %d (a lost cancel?); cancelling again: %s",
                len(running),
                TASK_STOP_GRACE_S,
                cancels,
                names,
            )
        else:
            log.error(
                "stop: %d task(s) still running after %d cancels; stopping without them: %s",
                len(running),
                cancels,
                names,
            )
    return running


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task`, a helper task nobody else awaits, and wait until it ends (`cancel_and_wait`);
    how it ended is moot at a stop (its exception is retrieved, not raised). Unlike awaiting
    it under ``except (CancelledError, Exception)``, a cancel of the caller itself goes on up."""
    if task is None:
        return
    await cancel_and_wait([task])
    if task.done() and not task.cancelled():
        task.exception()


class Stoppable(Protocol):
    stopping: bool

    def failed(self, what: str, exc: BaseException) -> None: ...


async def sweep_every(
    svc: Stoppable, seconds: float, sweep: Callable[[], Awaitable[object]], failed: str
) -> None:
    """`sweep()` now and every `seconds` until `svc` stops; a failure is reported as `failed`
    and the next sweep comes as usual. The stop is looked at before each pause: its cancel may
    be lost while redis-py sends a command (module docstring), and this ends the sweep at once."""
    while True:
        try:
            await sweep()
        except Exception as exc:
            svc.failed(failed, exc)
        if svc.stopping:
            return
        await asyncio.sleep(seconds)
