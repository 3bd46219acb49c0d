"""The private redis-server's log is ours (server/storage/embedded_redis.py `RedisLog`,
docs/operations.md §6, §10): it writes to a pipe that one thread reads into the logger
`solrace.redis-server`, with Redis' levels mapped to ours; the lines of a start and of a stop
we asked for are DEBUG (our own lines say what matters), a WARNING repeated within a minute is
DEBUG, and nothing is written to the data folder. Real redis-servers on 127.0.0.1.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis
from waiting import until, wait_until

from server.storage.embedded_redis import EmbeddedRedis
from server.storage.redis_log import parse_line

LOGGER = "solrace.redis-server"


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_redis_lines_are_parsed() -> None:
    assert parse_line("4242:M 02 Dec 2026 12:28:00.636 * Ready to accept connections") == (
        "*",
        "Ready to accept connections",
    )
    assert parse_line("4242:C 02 Dec 2026 12:28:00.635 # Configuration loaded") == (
        "#",
        "Configuration loaded",
    )
    assert parse_line("4242:signal-handler (1796214481) Received SIGTERM scheduling shutdown...") == (
        "#",
        "Received SIGTERM scheduling shutdown...",
    )
    assert parse_line("------ STACK TRACE ------") == ("", "------ STACK TRACE ------")


def test_a_running_redis_logs_through_us_with_its_levels(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        proc = EmbeddedRedis(data, appendonly=True).start()
        try:
            start = said(caplog)
            # The start: every line DEBUG, the ready line read before start() returned.
            assert any("eady to accept connections" in text for _, text in start), start
            assert {level for level, _ in start} == {logging.DEBUG}, start
            caplog.clear()
            with redis.Redis.from_url(proc.url) as r:
                r.execute_command("DEBUG", "LOG", "disk 1 is on fire")  # Redis' warning level
                r.execute_command("DEBUG", "LOG", "disk 2 is on fire")  # the same, numbers aside
                r.bgrewriteaof()  # notices
                wait_until(
                    lambda: any(
                        "rewrite" in text.lower() and level == logging.INFO for level, text in said(caplog)
                    ),
                    what="the rewrite's notices",
                )
            wait_until(lambda: len([t for _, t in said(caplog) if "on fire" in t]) == 2, what="both lines")
            fire = [(level, text) for level, text in said(caplog) if "on fire" in text]
            assert fire == [
                (logging.WARNING, "DEBUG LOG: disk 1 is on fire"),
                (logging.DEBUG, "DEBUG LOG: disk 2 is on fire"),
            ], fire
            caplog.clear()
        finally:
            proc.stop()
        assert proc.redis_log is not None
        proc.redis_log.wait_end(5)
    # The goodbye of a stop we asked for: DEBUG.
    bye = said(caplog)
    assert any("ready to exit" in text for _, text in bye), bye
    assert {level for level, _ in bye} == {logging.DEBUG}, bye
    assert not (data / "redis.log").exists()


async def test_an_exit_is_logged_with_its_last_line(
    make_server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The supervisor's outage line quotes the last line redis-server logged (read to the end of
    the pipe first); Redis' own lines of an exit nobody asked for are logged at its levels."""
    app = await make_server(redis="", data=str(tmp_path / "data"))
    assert app.redis_proc is not None and app.supervisor is not None
    with caplog.at_level(logging.INFO):
        r = aioredis.Redis.from_url(app.redis_proc.url)
        try:
            with pytest.raises(redis.exceptions.ConnectionError):
                await r.execute_command("SHUTDOWN")
        finally:
            await r.aclose()
        await until(lambda: app.supervisor.down() is not None, what="the private redis-server down")
        await until(lambda: app.supervisor.down() is None, what="the private redis-server back")
    outage = [r.getMessage() for r in caplog.records if "private redis-server exited" in r.getMessage()]
    assert len(outage) == 1, outage
    assert "(its log: 'Redis is now ready to exit, bye bye...'" in outage[0], outage
    assert (logging.INFO, "User requested shutdown...") in said(caplog)
    assert not (tmp_path / "data" / "redis.log").exists()
