"""Stopping the certifier ends its workers even while a solve is running.

A solve can take minutes; a server that is told to stop (or that failed to
start, its port taken) must not wait for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from concurrent.futures.process import BrokenProcessPool

import pytest
from waiting import DEADLINE

from server.certify import Certifier
from server.config import Settings


async def test_stop_does_not_wait_for_a_running_solve(r) -> None:
    settings = dataclasses.replace(Settings(), certify_workers=1, certified_games="")
    certifier = Certifier(r, settings)
    await certifier.start()
    # A "solve" that would outlast the test by far, already running in the worker.
    long_solve = asyncio.ensure_future(certifier.run(time.sleep, 600))
    await certifier.run(time.sleep, 0)  # the worker is up: the long solve holds it next
    started = time.monotonic()
    await asyncio.wait_for(certifier.stop(), timeout=DEADLINE)
    assert time.monotonic() - started < DEADLINE
    with pytest.raises(BrokenProcessPool):
        await asyncio.wait_for(long_solve, timeout=DEADLINE)
    assert certifier.executor is None
