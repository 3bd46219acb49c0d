"""Reconnect storms: server CPU per resumed hello, and 1,000 clients resuming at once.

Starts `solrace serve` (its private redis-server), makes N players, each
seated in a race (pairs of players per race, lobby or running), then:

1. cycles: R times in a row (CONCURRENCY at a time), open a WebSocket, say
   hello with a stored token, wait for the welcome, close; and the same R
   cycles without a hello (open, close). Server and redis-server CPU
   (utime+stime from /proc) per cycle; the difference of the two is the
   resumed hello alone.
2. storm: all N players open a connection and say hello with their token at
   once; the time from the start to each welcome (p50, p99, last), and how
   many were refused or timed out.

    .venv/bin/python bench/storm_bench.py --players 1000 --cycles 2000
    .venv/bin/python bench/storm_bench.py --redis redis://127.0.0.1:6379/0   # an external Redis

The client is the load generator's lean WebSocket client (a few µs per
frame), in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client.loadgen.procs import cpu_s, raise_nofile, start_server  # noqa: E402
from client.loadgen.wsclient import WSClient, open_ws  # noqa: E402


class Peer:
    """One connection: replies in order, waited for one at a time."""

    def __init__(self) -> None:
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ws: WSClient | None = None

    def on_message(self, payload: bytes) -> None:
        msg = msgspec.msgpack.decode(payload)
        if msg.get("rid") is not None or msg.get("t") in ("welcome", "error"):
            self.replies.put_nowait(msg)

    def on_close(self) -> None:
        self.replies.put_nowait({"t": "closed"})

    async def open(self, host: str, port: int, timeout: float) -> None:
        self.ws = await open_ws(
            host, port, on_message=self.on_message, on_close=self.on_close, timeout=timeout
        )

    async def request(self, timeout: float, **fields: Any) -> dict[str, Any]:
        assert self.ws is not None
        self.ws.send(msgspec.msgpack.encode(fields))
        async with asyncio.timeout(timeout):
            return await self.replies.get()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.abort()


async def make_players(host: str, port: int, n: int) -> list[str]:
    """N sessions, seated by twos in races (one creates, the other joins): their tokens."""
    tokens: list[str] = []

    async def pair(i: int) -> None:
        a, b = Peer(), Peer()
        await a.open(host, port, 30)
        await b.open(host, port, 30)
        wa = await a.request(30, t="hello", rid=1, v=1, name=f"s{i}a")
        wb = await b.request(30, t="hello", rid=1, v=1, name=f"s{i}b")
        race = await a.request(30, t="create", rid=2, game="fours-up", seats=2)
        assert race["t"] == "race", race
        joined = await b.request(30, t="join", rid=2, race=race["race"])
        assert joined["t"] in ("race", "joined", "state"), joined
        tokens.extend([wa["token"], wb["token"]])
        a.close()
        b.close()

    for start in range(0, n, 100):
        await asyncio.gather(*(pair(i) for i in range(start // 2, min(start + 100, n) // 2)))
    return tokens


async def cycles(
    host: str, port: int, tokens: list[str], count: int, concurrency: int, say_hello: bool
) -> int:
    done = 0
    errors = 0

    async def worker(w: int) -> None:
        nonlocal done, errors
        while done < count:
            token = tokens[done % len(tokens)]
            done += 1
            p = Peer()
            await p.open(host, port, 30)
            if say_hello:
                reply = await p.request(30, t="hello", rid=1, v=1, token=token)
                if reply.get("t") != "welcome":
                    errors += 1
            p.close()

    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return errors


async def storm(host: str, port: int, tokens: list[str], timeout: float) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    start = loop.time()
    times: list[float] = []
    failed: dict[str, int] = {}
    peers: list[Peer] = []

    async def one(token: str) -> None:
        p = Peer()
        peers.append(p)
        try:
            await p.open(host, port, timeout)
            reply = await p.request(
                max(0.1, timeout - (loop.time() - start)), t="hello", rid=1, v=1, token=token
            )
        except (TimeoutError, OSError) as exc:
            failed[type(exc).__name__] = failed.get(type(exc).__name__, 0) + 1
            return
        if reply.get("t") == "welcome":
            times.append(loop.time() - start)
        else:
            key = str(reply.get("code") or reply.get("t"))
            failed[key] = failed.get(key, 0) + 1

    await asyncio.gather(*(one(t) for t in tokens))
    for p in peers:
        p.close()
    times.sort()
    q = statistics.quantiles(times, n=100) if len(times) >= 2 else times * 99

    return {
        "resumed": len(times),
        "failed": failed,
        "p50_s": round(q[49], 3) if times else None,
        "p99_s": round(q[98], 3) if times else None,
        "last_s": round(times[-1], 3) if times else None,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=1000, help="players in the storm (even)")
    ap.add_argument("--cycles", type=int, default=2000, help="connect+hello+close cycles measured")
    ap.add_argument("--concurrency", type=int, default=8, help="cycles at once")
    ap.add_argument(
        "--timeout", type=float, default=10.0, help="a storm client gives up after this (the library's)"
    )
    ap.add_argument("--redis", default="", help="an external Redis URL (default: the server's private one)")
    ap.add_argument("--server-arg", action="append", default=[], help="one more `solrace serve` argument")
    return ap.parse_args(argv)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    raise_nofile(4 * args.players + 256)
    extra = ["--max-conn-per-addr", str(2 * args.players + 64), "--rate", "1000", "--burst", "1000"]
    server = start_server(args.redis, extra + args.server_arg)
    try:
        host, port = server.host, server.port
        redis_pid = next((pid for name, pid in server.pids().items() if name != "server"), None)
        tokens = await make_players(host, port, args.players)
        result: dict[str, Any] = {"players": len(tokens)}
        for label, say_hello in (("connect_close", False), ("connect_hello_close", True)):
            cpu0 = cpu_s(server.pid)
            r0 = cpu_s(redis_pid) if redis_pid else 0.0
            t0 = time.monotonic()
            errors = await cycles(host, port, tokens, args.cycles, args.concurrency, say_hello)
            wall = time.monotonic() - t0
            # Let the last closes be counted before reading the CPU.
            await asyncio.sleep(0.5)
            server_us = (cpu_s(server.pid) - cpu0) / args.cycles * 1e6
            redis_us = ((cpu_s(redis_pid) - r0) / args.cycles * 1e6) if redis_pid else None
            result[label] = {
                "server_cpu_us": round(server_us),
                "redis_cpu_us": round(redis_us) if redis_us is not None else None,
                "per_s": round(args.cycles / wall),
                "errors": errors,
            }
        result["hello_server_cpu_us"] = (
            result["connect_hello_close"]["server_cpu_us"] - result["connect_close"]["server_cpu_us"]
        )
        cpu0 = cpu_s(server.pid)
        r0 = cpu_s(redis_pid) if redis_pid else 0.0
        result["storm"] = await storm(host, port, tokens, args.timeout)
        await asyncio.sleep(0.5)
        result["storm"]["server_cpu_s"] = round(cpu_s(server.pid) - cpu0, 2)
        result["storm"]["redis_cpu_s"] = round(cpu_s(redis_pid) - r0, 2) if redis_pid else None
        return result
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
