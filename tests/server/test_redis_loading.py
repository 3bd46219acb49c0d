"""A private redis-server loading a large AOF is alive (server/storage/embedded_redis.py
`_wait_ready`): it answers `-LOADING` until it has read its data, minutes for a few GB, and is
waited for as long as it answers, the log saying so; only one that gives no answer is given up
on. The supervisor's failed restarts are WARNINGs, not repeated within a minute
(server/storage/supervisor.py). Real redis-servers on 127.0.0.1; the load is made slow with
Redis' `key-load-delay` (microseconds per key read) rather than with GBs of data.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from pathlib import Path

import pytest
import redis
from waiting import DEADLINE, until, wait_until

from server.storage.embedded_redis import EmbeddedRedis
from server.storage.supervisor import Supervisor

LOGGER = "solrace.redis"
KEYS = 200
VALUE = os.urandom(100_000)  # 20 MB, incompressible: Redis answers clients every 2 MB it reads
DELAY_US = 10_000  # per key: a 2 s load, clients answered every 0.2 s


class Configured(EmbeddedRedis):
    """An `EmbeddedRedis` given more redis-server options (`extra`, changeable between starts)."""

    def __init__(self, data_dir: Path, **kwargs: object) -> None:
        super().__init__(data_dir, **kwargs)  # type: ignore[arg-type]
        self.extra: list[str] = []

    def _config_args(self) -> list[str]:
        return [*super()._config_args(), *self.extra]


def fill(data: Path) -> None:
    """An AOF of KEYS keys beginning with an RDB preamble (what Redis' key-load-delay slows)."""
    with EmbeddedRedis(data, appendfsync="no") as first, redis.Redis.from_url(first.url) as r:
        with r.pipeline(transaction=False) as pipe:
            for i in range(KEYS):
                pipe.set(f"k{i}", VALUE)
            pipe.execute()
        r.bgrewriteaof()

        def rewritten() -> bool:
            info = r.info("persistence")
            return not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"])

        wait_until(rewritten, what="the AOF rewritten")
        assert r.info("persistence")["aof_last_bgrewrite_status"] == "ok"


def loading_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [
        (r.levelno, r.getMessage())
        for r in caplog.records
        if r.name == LOGGER and "is loading its data" in r.getMessage()
    ]


def test_a_redis_loading_its_data_is_waited_for_past_the_timeout(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    fill(data)
    slow = Configured(data, appendfsync="no")
    slow.extra = ["--key-load-delay", str(DELAY_US)]
    with caplog.at_level(logging.INFO, logger=LOGGER):
        # 1 s for a child that does not answer; this one answers -LOADING for about 2 s.
        began = time.monotonic()
        slow.start(timeout=1.0)
        took = time.monotonic() - began
    try:
        with redis.Redis.from_url(slow.url) as r:
            assert r.dbsize() == KEYS
            assert r.get(f"k{KEYS - 1}") == VALUE
        said = loading_lines(caplog)
        assert said and said[0][0] == logging.INFO, said
        assert len(said) == 1, said  # said again only every LOADING_SAY_EVERY_S (30 s)
        assert took > 1.0, took  # the load outlasted the timeout (else this proves nothing)
    finally:
        slow.stop()


def test_a_redis_that_never_answers_is_given_up_on(tmp_path: Path) -> None:
    """The cap stays for a child that is alive and silent (here: stopped with SIGSTOP)."""
    silent = EmbeddedRedis(tmp_path / "data", appendonly=False)
    silent.start()
    assert silent.proc is not None
    os.kill(silent.proc.pid, signal.SIGSTOP)
    try:
        assert not silent._wait_ready(silent.port, 0.3)
    finally:
        os.kill(silent.proc.pid, signal.SIGCONT)
        silent.stop()


async def test_failed_restarts_are_warnings_not_a_flood(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proc = Configured(tmp_path / "data", appendonly=False)
    await asyncio.to_thread(proc.start)
    sup = Supervisor(proc, poll_s=0.01, backoff_min_s=0.01, backoff_max_s=0.02)
    sup.start()
    try:
        with caplog.at_level(logging.DEBUG, logger=LOGGER):
            proc.extra = ["--no-such-directive", "1"]  # every restart fails from now on
            assert proc.proc is not None
            proc.proc.kill()

            def failed() -> list[logging.LogRecord]:
                return [r for r in caplog.records if r.name == LOGGER and "failed (" in r.getMessage()]

            await until(lambda: len(failed()) >= 4, what="four failed restarts")
            levels = [r.levelno for r in failed()]
            # The first is a WARNING with Redis' reason; the same again within a minute is not.
            assert levels[0] == logging.WARNING, levels
            assert "did not start" in failed()[0].getMessage(), failed()[0].getMessage()
            assert levels.count(logging.WARNING) == 1, levels
            proc.extra = []
            await until(lambda: sup.down() is None, what="the redis-server back")
    finally:
        await asyncio.wait_for(sup.stop(), DEADLINE)
        await asyncio.to_thread(proc.stop)


async def test_stopping_the_supervisor_ends_a_long_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart loading a large AOF is not waited out at shutdown: its child is stopped."""
    data = tmp_path / "data"
    await asyncio.to_thread(fill, data)
    proc = Configured(data, appendfsync="no")
    await asyncio.to_thread(proc.start)
    sup = Supervisor(proc, poll_s=0.01, backoff_min_s=0.01)
    sup.start()
    try:
        with caplog.at_level(logging.INFO, logger=LOGGER):
            # 20 s to load, answering every 2 s (the restart gives a silent child 10 s).
            proc.extra = ["--key-load-delay", str(DELAY_US * 10)]
            assert proc.proc is not None
            proc.proc.kill()
            await until(lambda: loading_lines(caplog), what="the restart loading")
        # Far less than the load: the loading child is stopped, not waited for.
        await asyncio.wait_for(sup.stop(), 10.0)
        assert proc.exited() is None and proc.proc is None  # stopped, nothing left running
    finally:
        await asyncio.to_thread(proc.stop)
