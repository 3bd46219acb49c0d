"""The bot worker processes `solrace serve` starts (BOT_WORKERS, docs/operations.md "Bots").

Each is `solrace bots` (client/bots/service.py) connected to this server over
the protocol, with the server's Redis URL in its environment (not on its
command line). A worker that exits is started again after a pause, which
doubles while workers keep dying young (a broken install, a bad setting) so
that a crash loop is a line every minute, not every two seconds.

It runs in the folder that holds the `client` package, not in the server's
working directory: `python -m` puts its working directory first on the
import path, and a `secrets.py` or `redis.py` an operator left beside the
data folder would otherwise shadow the module the worker needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from pathlib import Path

import client

from .config import Settings

log = logging.getLogger("solrace.botworkers")

#: The pause before a worker that exited is started again...
RESTART_PAUSE_S = 2.0
#: ...doubled after each worker that lived less than WORKER_HEALTHY_S, up to this.
RESTART_PAUSE_MAX_S = 60.0
WORKER_HEALTHY_S = 30.0
#: Where a worker runs: the folder that holds the `client` package (module doc).
WORKER_CWD = Path(client.__file__).resolve().parent.parent
#: How long a stopping worker may take (its last Redis calls) before it is killed: within the
#: 10 s grace period of a stop (docs/operations.md §8), even while Redis stalls.
WORKER_STOP_S = 5.0


class BotWorkers:
    def __init__(self, settings: Settings, ws_url: str, redis_url: str) -> None:
        self.settings = settings
        self.ws_url = ws_url
        self.redis_url = redis_url
        self.tasks: list[asyncio.Task[None]] = []
        self.procs: set[asyncio.subprocess.Process] = set()
        self.stopping = False

    def command(self) -> list[str]:
        st = self.settings
        return [
            sys.executable,
            "-m",
            "client.cli",
            "bots",
            "--url",
            self.ws_url,
            "--max-bots",
            str(st.bots_max),
            "--think-ms",
            str(st.bot_think_ms),
            "--move-ms",
            str(st.bot_move_ms),
            "--wait-s",
            str(st.bot_wait_s),
            "--nice",
            str(st.bot_nice),
            "--parent",
            str(os.getpid()),
        ]

    def start(self) -> None:
        for _ in range(self.settings.bot_workers):
            self.tasks.append(asyncio.ensure_future(self._keep_running()))

    async def _keep_running(self) -> None:
        env = dict(os.environ, SOLRACE_REDIS=self.redis_url)
        young = 0  # workers in a row that died before WORKER_HEALTHY_S
        while not self.stopping:
            # Its own session: a terminal's Ctrl-C goes to the server, which stops the workers.
            # Its stdout line (worker id, bots) is for a worker run by hand: the server's stdout
            # says only where it listens (its start is logged below); its log goes to our stderr.
            proc = await asyncio.create_subprocess_exec(
                *self.command(),
                env=env,
                cwd=WORKER_CWD,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
            self.procs.add(proc)
            log.info("bot worker started (pid %d)", proc.pid)
            began = time.monotonic()
            code = await proc.wait()
            self.procs.discard(proc)
            if not self.stopping:
                young = young + 1 if time.monotonic() - began < WORKER_HEALTHY_S else 0
                pause = restart_pause(young)
                log.warning("bot worker %d exited with %s; starting another in %.0f s", proc.pid, code, pause)
                await asyncio.sleep(pause)

    async def stop(self) -> None:
        self.stopping = True
        for proc in list(self.procs):
            if proc.returncode is None:
                # Gone but not reaped yet (it stops by itself when it loses us): nothing to signal.
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
        for proc in list(self.procs):
            try:
                async with asyncio.timeout(WORKER_STOP_S):
                    await proc.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def restart_pause(young: int) -> float:
    """The pause before the next worker when the last `young` workers in a row died young:
    RESTART_PAUSE_S after the first, doubled for each one more (at most RESTART_PAUSE_MAX_S)."""
    return min(RESTART_PAUSE_S * (1 << min(max(young - 1, 0), 16)), RESTART_PAUSE_MAX_S)
