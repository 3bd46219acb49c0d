"""The private redis-server's maxmemory (--redis-maxmemory-mb, docs/operations.md §13): set with the
`noeviction` policy, so that a Redis that fills up refuses writes instead of filling the machine's
memory and swap, and never evicts a race. What players see then: anything that writes (a move, a
new race, a spectator's seat, a new player's session) gets `internal` ("no effect"); reads, a
returning player's hello and the connection go on; `/healthz` says 503 with the reason; the log
has one line, not one per request (nor a traceback); and once memory is freed the same move goes
through. A real server with its private redis-server, squeezed to a few MiB.
"""

from __future__ import annotations

import logging
from pathlib import Path

import hiredis
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError, OutOfMemoryError
from test_server_ops import get, make_race_simple
from waiting import until
from wsclient import Raw, player

from server.config import Settings
from server.storage.health import is_outage, refusal
from server.storage.host_memory import auto_maxmemory_mb, machine_memory_bytes

MAXMEMORY_MB = 8


async def fill(r: aioredis.Redis) -> int:
    """Write 256 KiB values until Redis refuses one for its maxmemory; how many it took.

    The refused write's own 256 KiB (its query buffer) counted in that refusal: without it Redis
    may be just under the limit again. So the limit is then pulled 1 MiB under what Redis
    holds: over it for sure, whatever small allocations come and go."""
    for i in range(4 * 4 * MAXMEMORY_MB):
        try:
            await r.set(f"junk:{i}", b"x" * (256 * 1024))
        except OutOfMemoryError:
            used = int((await r.info("memory"))["used_memory"])
            await r.config_set("maxmemory", str(used - 2**20))
            return i
    raise AssertionError("Redis took every write: no maxmemory?")


async def test_a_full_redis_refuses_writes_cleanly_and_recovers(
    make_server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_server(redis="", data=str(tmp_path / "data"), redis_maxmemory_mb=MAXMEMORY_MB)
    assert app.redis_proc is not None
    r = aioredis.Redis.from_url(app.redis_proc.url)
    try:
        assert await r.config_get("maxmemory") == {"maxmemory": str(MAXMEMORY_MB * 2**20)}
        assert await r.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        a = await player(app.ws_url, "ada")
        b = await player(app.ws_url, "bob")
        rid = await make_race_simple(a)
        assert (await a.request("move", race=rid, n=0, move="draw"))["t"] == "ack"

        caplog.clear()
        with caplog.at_level(logging.INFO):
            taken = await fill(r)
            assert taken > 0
            # A move: refused with `internal`, nothing applied, the connection stays.
            refused = await a.request("move", race=rid, n=1, move="draw")
            assert refused["t"] == "error" and refused["code"] == "internal", refused
            # A new race: the same.
            created = await a.request("create", game="fours-up", seats=2)
            assert created["t"] == "error" and created["code"] == "internal", created
            # So do a spectator's seat and a new player's session.
            spectated = await b.request("spectate", race=rid)
            assert spectated["t"] == "error" and spectated["code"] == "internal", spectated
            newcomer = await Raw.open(app.ws_url)
            hello = await newcomer.request("hello", v=1, name="cid")
            assert hello["t"] == "error" and hello["code"] == "internal", hello
            # Reads go on, and so does a returning player's session.
            listed = await a.request("races")
            assert listed["t"] != "error", listed
            assert (await a.request("resync", race=rid))["t"] == "state"
            again = await Raw.open(app.ws_url)
            assert (await again.request("hello", v=1, token=a.token))["t"] == "welcome"
            status, _, body = await get(app.http_url + "healthz")
            assert status == 503 and b"maxmemory" in body, (status, body)
            assert await r.exists("junk:0") == 1  # noeviction: nothing was dropped
        problems = [
            rec
            for rec in caplog.records
            if rec.levelno >= logging.WARNING and "via CONFIG SET" not in rec.getMessage()  # fill()'s
        ]
        said = [rec.getMessage() for rec in problems]
        assert len(problems) == 1 and "maxmemory" in said[0], said
        assert not any(rec.exc_info for rec in caplog.records), said

        # Memory freed: the same move (n=1, it had no effect) goes through, /healthz is 200 once
        # no write has been refused for a few seconds, and the log says the outage is over
        # (nothing reconnects to say it: the connections stayed up).
        caplog.clear()
        with caplog.at_level(logging.INFO):
            await r.delete(*[f"junk:{i}" for i in range(taken)])
            await r.config_set("maxmemory", str(MAXMEMORY_MB * 2**20))
            status, _, body = await get(app.http_url + "healthz")
            assert status == 503 and b"a write was refused" in body, (status, body)  # a moment ago
            ack = await a.request("move", race=rid, n=1, move="draw")
            assert ack["t"] == "ack", ack

            async def healthy() -> bool:
                return (await get(app.http_url + "healthz"))[0] == 200

            await until(healthy, what="/healthz 200 once memory is freed")

            def over() -> list[str]:
                return [m for rec in caplog.records if "Redis available again" in (m := rec.getMessage())]

            said_over = await until(over, what="the outage's end logged")
            assert "requests failed" in said_over[0], said_over
        for c in (a, b, newcomer, again):
            await c.close()
    finally:
        await r.aclose()


async def test_the_private_redis_restarts_at_its_maxmemory(make_server, tmp_path: Path) -> None:
    """A redis-server that comes back over its maxmemory (its AOF holds more, or the setting was
    lowered) refuses the supervisor's probe write with OOM: it is back all the same (no restart
    would change that), and /healthz says why writes fail."""
    app = await make_server(redis="", data=str(tmp_path / "data"), redis_maxmemory_mb=MAXMEMORY_MB)
    assert app.redis_proc is not None and app.supervisor is not None
    r = aioredis.Redis.from_url(app.redis_proc.url)
    try:
        await r.config_set("maxmemory", "0")  # for now: 12 MiB in, then back to its 8 MiB
        for i in range(12 * 4):
            await r.set(f"junk:{i}", b"x" * (256 * 1024))
        with pytest.raises(ConnectionError):
            await r.execute_command("SHUTDOWN")  # AOF flushed; the supervisor restarts it
    finally:
        await r.aclose()
    await until(lambda: app.supervisor.down() is not None, what="the private redis-server down")
    await until(lambda: app.supervisor.down() is None, what="the private redis-server back")

    async def says_maxmemory() -> bool:
        status, _, body = await get(app.http_url + "healthz")
        return status == 503 and b"maxmemory" in body

    await until(says_maxmemory, what="/healthz 503: at its maxmemory")


def test_the_default_is_half_of_the_machine() -> None:
    assert Settings().redis_maxmemory_mb == -1
    total = machine_memory_bytes()
    assert total is not None and total > 0
    assert auto_maxmemory_mb(-1) == max(total // 2 // 2**20, 1)
    assert auto_maxmemory_mb(0) == 0 and auto_maxmemory_mb(512) == 512
    with pytest.raises(ValueError, match="--redis-maxmemory-mb must be -1 to 16777216, not -2"):
        Settings(redis_maxmemory_mb=-2)


async def test_an_external_redis_at_its_maxmemory_is_reported(make_server, clean_redis: str) -> None:
    """/healthz applies the same test to any Redis (--redis): its own maxmemory."""
    app = await make_server()
    r = aioredis.Redis.from_url(clean_redis)
    try:
        used = int((await r.info("memory"))["used_memory"])
        await r.config_set("maxmemory", str(used // 2))
        try:
            status, _, body = await get(app.http_url + "healthz")
        finally:
            await r.config_set("maxmemory", "0")
        assert status == 503 and b"maxmemory" in body, (status, body)
        assert (await get(app.http_url + "healthz"))[0] == 200
    finally:
        await r.aclose()


def test_an_oom_refusal_counts_as_an_outage_however_it_comes() -> None:
    """From redis-py (its class, the code taken off), the move pipe (the raw reply), a script."""
    assert refusal(OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")) == "OOM"
    assert refusal(hiredis.ReplyError("OOM command not allowed when used memory > 'maxmemory'.")) == "OOM"
    assert (
        refusal(
            hiredis.ReplyError(
                "ERR Error running script (call to f_52bd7f): @user_script:65: @user_script: 65: "
                "-OOM command not allowed when used memory > 'maxmemory'."
            )
        )
        == "OOM"
    )
    assert is_outage(OutOfMemoryError("command not allowed"))
    assert refusal(hiredis.ReplyError("ERR Error running script (call to f_52bd7f): bad argument")) is None
