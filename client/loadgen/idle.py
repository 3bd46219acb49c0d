"""`solrace bench idle`: memory per idle player (after hello) vs per echo connection."""

from __future__ import annotations

import asyncio
from typing import Any

from . import procs as P
from .bot import encode
from .measure import Log
from .pacing import now
from .wsclient import WSClient, close_all, open_ws


class _Idle:
    __slots__ = ("ws", "fut")

    def __init__(self) -> None:
        self.ws: WSClient | None = None
        self.fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    def on_message(self, data: bytes) -> None:
        if not self.fut.done():
            self.fut.set_result(data)


async def _open_idle(
    host: str, port: int, path: str, n: int, first: bytes, concurrency: int = 100
) -> list[_Idle]:
    sem = asyncio.Semaphore(concurrency)
    conns: list[_Idle] = []

    async def one(i: int) -> None:
        async with sem:
            c = _Idle()
            ws = c.ws = await open_ws(host, port, path, on_message=c.on_message, timeout=60)
            ws.send(first)
            async with asyncio.timeout(60):
                await c.fut
            conns.append(c)

    await asyncio.gather(*(one(i) for i in range(n)))
    return conns


async def _idle_one(proc: P.Proc, path: str, n: int, first: bytes, settle: float, log: Log) -> dict[str, Any]:
    warm = await _open_idle(proc.host, proc.port, path, 20, first)
    close_all(c.ws for c in warm)
    await asyncio.sleep(settle)
    r0 = proc.rss()
    t = now()
    conns = await _open_idle(proc.host, proc.port, path, n, first)
    opened = now() - t
    await asyncio.sleep(settle)
    r1 = proc.rss()
    out = {
        "connections": len(conns),
        "open_s": round(opened, 2),
        "rss_before": r0,
        "rss_after": r1,
        "bytes_per_conn": {k: round((r1[k] - r0[k]) / max(1, len(conns))) for k in r0},
    }
    close_all(c.ws for c in conns)
    await asyncio.sleep(0.2)
    log(f"  {proc.name}: {out['bytes_per_conn']} bytes/connection, opened in {opened:.1f}s")
    return out


async def idle_mode(a: Any, log: Log) -> dict[str, Any]:
    P.raise_nofile(a.conns + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, P.SERVER_FLAGS + list(a.server_arg or []))
    hello = encode({"t": "hello", "v": 1, "name": "idle-bench"})
    res: dict[str, Any] = {"mode": "idle", "connections": a.conns, "message_bytes": len(hello)}
    try:
        log(f"{a.conns} idle connections (hello, then nothing) to the echo server…")
        res["echo"] = await _idle_one(echo, "/", a.conns, hello, a.settle, log)
        log(f"{a.conns} idle players (after hello) to the race server…")
        res["server"] = await _idle_one(server, "/ws", a.conns, hello, a.settle, log)
    finally:
        server.stop()
        echo.stop()
    return res
