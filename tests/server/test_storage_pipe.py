"""The pipelined Redis connection (server/storage/resp.py): a demoted primary, a lost setup, a stall."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import redis
from waiting import DEADLINE, until

from server.config import Settings
from server.storage import Store
from server.storage.embedded_redis import EmbeddedRedis
from server.storage.pubsub import Subscriber
from server.storage.resp import Pipe, is_readonly


def call(pipe: Pipe, *args: Any) -> asyncio.Future[Any]:
    fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    pipe.call(args, fut.set_result)
    return fut


async def test_a_demoted_primary_is_dropped_and_reconnected(tmp_path: Path) -> None:
    a = EmbeddedRedis(tmp_path / "a", appendonly=False)
    b = EmbeddedRedis(tmp_path / "b", appendonly=False)
    a.start()
    b.start()
    pipe = Pipe(a.url)
    back = asyncio.Event()
    pipe.on_reconnect = back.set
    try:
        await pipe.connect()
        assert await call(pipe, "SET", "k", "1") == b"OK"
        first = pipe.proto
        # A failover without Sentinel's client kill: `a` becomes a replica and stays reachable.
        with redis.Redis(port=a.port) as ra:
            ra.replicaof("127.0.0.1", b.port)
            refused = await call(pipe, "SET", "k", "2")
            assert is_readonly(refused), refused
            # ...and a script's write is refused the same way.
            assert is_readonly(
                await call(pipe, "EVAL", "return redis.call('SET', KEYS[1], '3')", 1, "k")
            ) or (not pipe.ready)
            # The pipe drops that connection and reconnects (here to the same address: a plain URL).
            await asyncio.wait_for(back.wait(), DEADLINE)
            assert pipe.proto is not first
            ra.replicaof("no", "one")  # promoted again: writes go through on the new connection

        async def writes() -> bool:
            return await call(pipe, "SET", "k", "4") == b"OK"

        await until(writes, timeout=DEADLINE, what="a write after the promotion")
    finally:
        pipe.close()
        a.stop()
        b.stop()


async def test_a_connection_lost_during_its_setup_is_a_connection_error() -> None:
    """A redis-server killed between accepting the connection and answering its PING: the
    reconnect loop must see a ConnectionError (and try again), not a crash of its task."""

    async def hang_up(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _reader.read(1)  # the PING arrives...
        writer.close()  # ...and is never answered

    srv = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    pipe = Pipe(f"redis://127.0.0.1:{port}/0")
    try:
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(pipe.connect(), DEADLINE)
        sub = Subscriber(f"redis://:secret@127.0.0.1:{port}/0", lambda _c, _m: None, lambda: None)
        with pytest.raises(ConnectionError):  # the pub/sub connection's AUTH is never answered either
            await asyncio.wait_for(sub.start(), DEADLINE)
    finally:
        pipe.close()
        srv.close()
        await srv.wait_closed()


async def test_after_a_restart_the_cold_client_starts_on_fresh_connections(tmp_path: Path) -> None:
    """Its idle connections went to the redis-server that died: once the move pipe is back they
    are closed, so the next requests open new ones instead of failing one each."""
    first = EmbeddedRedis(tmp_path / "r", appendonly=False)
    first.start()
    store = Store(first.url, Settings(redis=first.url))
    await store.start()
    second: EmbeddedRedis | None = None
    try:
        # A few idle connections in the cold client's pool.
        await asyncio.gather(*(store.redis.set(f"k{i}", i) for i in range(4)))
        first.stop()
        store.health.failed(ConnectionError("redis unavailable"))  # what the failing requests report
        second = EmbeddedRedis(tmp_path / "r", appendonly=False, port=first.port)
        second.start()

        await until(lambda: store.health.first_failure is None, timeout=DEADLINE, what="the outage over")
        # Every request now succeeds at once, on new connections.
        assert await asyncio.gather(*(store.redis.set(f"k{i}", i) for i in range(8))) == [True] * 8
    finally:
        await store.close()
        if second is not None:
            second.stop()


async def test_a_stalled_redis_fails_the_waiting_commands_and_the_pipe_comes_back(tmp_path: Path) -> None:
    """docs/operations.md §7: nothing hangs for as long as Redis stalls. A stopped redis-server
    (SIGSTOP: it keeps accepting connections) fails the waiting commands after the reply
    timeout, later calls at once, and the pipe is back once Redis answers again."""
    r = EmbeddedRedis(tmp_path / "r", appendonly=False)
    r.start()
    assert r.proc is not None
    timeout = 0.5
    pipe = Pipe(r.url, reply_timeout=timeout)
    back = asyncio.Event()
    pipe.on_reconnect = back.set
    loop = asyncio.get_running_loop()
    try:
        await pipe.connect()
        assert await call(pipe, "SET", "k", "1") == b"OK"
        os.kill(r.proc.pid, signal.SIGSTOP)
        try:
            t0 = loop.time()
            waiting = [call(pipe, "INCR", "n") for _ in range(3)]
            replies = await asyncio.wait_for(asyncio.gather(*waiting), DEADLINE)
            waited = loop.time() - t0
            for reply in replies:
                assert isinstance(reply, ConnectionError) and "no reply within 0.5 s" in str(reply), reply
            # Not before the timeout; after it by at most one watchdog period (and the machine's load).
            assert waited >= timeout, waited
            # While Redis stays stopped: a call fails at once, the reconnection's PING times out.
            assert isinstance(await asyncio.wait_for(call(pipe, "GET", "k"), DEADLINE), ConnectionError)
            assert not back.is_set()
        finally:
            os.kill(r.proc.pid, signal.SIGCONT)
        await asyncio.wait_for(back.wait(), DEADLINE)

        async def answers() -> bool:
            return await call(pipe, "GET", "k") == b"1"

        await until(answers, timeout=DEADLINE, what="a call after the stall")
    finally:
        pipe.close()
        r.stop()
