"""The pieces of an outage that need no Redis: what counts as one, its log lines, the data folder lock,
the settings a server refuses."""

from __future__ import annotations

import logging
import os
from typing import Any

import hiredis
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.config import Settings
from server.storage.data_folder import DataFolderInUse, lock_data_folder
from server.storage.health import QUIET_S, Health, OutageLog, is_outage


def test_what_counts_as_an_outage() -> None:
    assert is_outage(ConnectionError("redis unavailable"))
    assert is_outage(RedisConnectionError("Connection refused"))
    assert is_outage(hiredis.ReplyError("MISCONF Errors writing to the AOF file: No space left on device"))
    assert is_outage(ResponseError("LOADING Redis is loading the dataset in memory"))
    assert is_outage(
        hiredis.ReplyError(
            "ERR Error running script (call to f_4622d2): @user_script:57: @user_script: 57: "
            "-MISCONF Errors writing to the AOF file: No space left on device"
        )
    )
    assert is_outage(
        ResponseError(
            "Command # 1 (HINCRBY conns:{127.0.0.1} p1 -1) of pipeline caused error: "
            "('MISCONF Errors writing to the AOF file: No space left on device',)"
        )
    )
    assert not is_outage(hiredis.ReplyError("ERR Error running script (call to f_4622d2): bad argument"))
    assert not is_outage(ValueError("unexpected move script reply"))


def test_an_outage_logs_once_and_once_when_it_ends(caplog: pytest.LogCaptureFixture) -> None:
    health = Health(redis=None, cluster=False)
    with caplog.at_level(logging.INFO, logger="solrace.redis"):
        for _ in range(500):
            health.failed(ConnectionError("redis unavailable"))
        health.recovered()
        health.recovered()  # nothing more to say
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].startswith("Redis unavailable") and "redis unavailable" in lines[0]
    assert lines[1].startswith("Redis available again: 500 requests failed")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="solrace.redis"):
        health.failed(ConnectionError("again"))  # a new outage is logged again
    assert len(caplog.records) == 1


def test_an_outage_is_not_over_while_the_private_redis_is_being_restarted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    health = Health(redis=None, cluster=False)
    down: list[str] = ["private redis-server down (exited with status 1)"]
    health.process_down = lambda: down[0] if down else None
    with caplog.at_level(logging.INFO, logger="solrace.redis"):
        health.failed(ConnectionError("redis unavailable"))
        health.recovered()  # a connection to the restarted process, which may die again
        health.failed(ConnectionError("redis unavailable"))
        down.clear()
        health.recovered()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[1].startswith("Redis available again: 2 requests failed")


def test_a_component_logs_the_first_failure_of_an_outage() -> None:
    outages = OutageLog()
    assert [outages.level() for _ in range(3)] == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    assert outages.last_failure is not None
    outages.last_failure -= QUIET_S + 1  # a quiet minute without a failure: the outage was over
    assert outages.level() == logging.WARNING


async def test_health_says_why_the_private_redis_is_down() -> None:
    health = Health(redis=None, cluster=False)
    health.process_down = lambda: "private redis-server down (killed by signal 9)"
    assert await health.check() == "private redis-server down (killed by signal 9)"


def test_a_data_folder_has_one_holder(tmp_path) -> None:
    fd = lock_data_folder(tmp_path / "data")
    try:
        with pytest.raises(DataFolderInUse, match=r"in use by another solrace serve \(pid \d+\)"):
            lock_data_folder(tmp_path / "data")
    finally:
        os.close(fd)
    os.close(lock_data_folder(tmp_path / "data"))  # free again once closed


@pytest.mark.parametrize("port", [-1, 65536, 99999])
def test_a_port_out_of_range_is_refused(port: int) -> None:
    with pytest.raises(ValueError, match="--port must be 0 to 65535"):
        Settings(port=port)


def test_an_unknown_fsync_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="--redis-fsync"):
        Settings(redis_fsync="sometimes")
    assert Settings().redis_fsync == "always"


@pytest.mark.parametrize("changes", [{"hint_wait_s": 0.0}, {"analysis_wait_s": -1.0}])
def test_a_solver_wait_must_be_positive(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"--(hint|analysis)-wait-s must be at least 0\.001, not "):
        Settings(**changes)


def test_the_redis_timeout_is_bounded_and_outlasts_a_wait_for_replicas() -> None:
    for bad in (0.0, -1.0, 3601.0):
        with pytest.raises(ValueError, match=r"--redis-timeout-s must be 0\.001 to 3600, not "):
            Settings(redis_timeout_s=bad)
    with pytest.raises(ValueError, match="longer than --redis-wait-timeout-ms"):
        Settings(redis_wait_replicas=1, redis_wait_timeout_ms=5000, redis_timeout_s=5)
    assert Settings(redis_wait_replicas=1, redis_wait_timeout_ms=1000).redis_timeout_s == 5


async def test_health_is_down_while_the_move_pipe_reconnects() -> None:
    """Redis may answer the check's own client before the move pipe has reconnected (its
    backoff grows to 1 s): /healthz says 503 until moves can go through."""
    health = Health(redis=None, cluster=False)
    health.pipe_down = lambda: "the move pipeline is reconnecting to redis"
    assert await health.check() == "the move pipeline is reconnecting to redis"
