"""/healthz while Redis stalls (docs/operations.md §7, §10): the private redis-server stopped with
SIGSTOP still accepts connections and answers nothing. The check gives up after its own
HEALTH_TIMEOUT_S and answers 503 with the reason, promptly, however many checks arrive meanwhile
(a balancer polls it), and 200 again once Redis answers. Nothing waits for --redis-timeout-s.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from test_server_ops import get
from waiting import DEADLINE, until

from server.net.http import HEALTH_TIMEOUT_S

# What a check may take beyond HEALTH_TIMEOUT_S on a loaded machine (the round trip, a busy
# event loop stalled for seconds): generous, yet still far below the --redis-timeout-s below, so
# that a check which waited for Redis' own timeout (the failure this test is for) is told apart.
SLACK_S = 10.0
REDIS_TIMEOUT_S = 30.0


async def timed_get(port: int) -> tuple[float, int, bytes]:
    """GET /healthz on this event loop (no thread: a thread pool would queue concurrent checks):
    seconds it took, status, body."""
    t0 = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
        length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
        body = await asyncio.wait_for(reader.readexactly(length), DEADLINE)
    finally:
        writer.close()
    return time.monotonic() - t0, int(head.split()[1]), body


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="SIGSTOP")
async def test_healthz_answers_503_promptly_while_the_private_redis_is_stopped(
    make_server, tmp_path: Path
) -> None:
    app = await make_server(redis="", data=str(tmp_path / "data"), redis_timeout_s=REDIS_TIMEOUT_S)
    assert app.redis_proc is not None and app.redis_proc.proc is not None
    url = app.http_url + "healthz"
    assert (await get(url))[0] == 200
    pid = app.redis_proc.proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        # One check, then a balancer's worth of them at once: each within the timeout.
        took, status, body = await timed_get(app.port)
        assert status == 503 and body == b"redis unreachable (no answer within 2 s)\n", (status, body)
        assert HEALTH_TIMEOUT_S - 0.1 <= took < HEALTH_TIMEOUT_S + SLACK_S, took
        health = app.store.health
        checks = 0
        check = health.check

        async def counted() -> str | None:
            nonlocal checks
            checks += 1
            return await check()

        health.check = counted  # type: ignore[method-assign]
        results = await asyncio.gather(*(timed_get(app.port) for _ in range(8)))
        for took, status, _ in results:
            assert status == 503 and took < HEALTH_TIMEOUT_S + SLACK_S, results
        assert checks <= 2  # they shared a check: a waiting Redis connection or two, not eight
    finally:
        os.kill(pid, signal.SIGCONT)

    async def healthy() -> bool:
        return (await get(url))[0] == 200

    await until(healthy, what="/healthz 200 once redis-server runs again")
