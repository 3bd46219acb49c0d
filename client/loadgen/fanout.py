"""`solrace bench fanout`: time until the last of S spectators has a progress update.

One race of bots moving at a fixed rate, S spectators on it; against the echo
server's broadcast of progress-sized messages to S listeners.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Any

from . import procs as P
from .bot import decode, encode
from .measure import Log, lat_summary
from .movegen import MoveGen
from .pacing import now
from .wsclient import WSClient, close_all, open_ws

#: The key of a fan-out update in a watcher's message (None: not an update).
FanKey = Callable[[dict[str, Any]], Hashable | None]


class _Watcher:
    __slots__ = ("ws", "fut", "seen", "key")

    def __init__(self, seen: dict[Any, list[float]], key: FanKey) -> None:
        self.ws: WSClient | None = None
        self.fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.seen = seen
        self.key = key

    def on_message(self, data: bytes) -> None:
        t = now()
        msg = decode(data)
        k = self.key(msg)
        if k is not None:
            e = self.seen.get(k)
            if e is None:
                self.seen[k] = [1, t, t]
            else:
                e[0] += 1
                e[2] = t
        elif not self.fut.done():
            self.fut.set_result(msg)


def _fan_summary(
    sent: dict[Any, float], seen: dict[Any, list[float]], s: int, t0: float, t1: float
) -> dict[str, Any]:
    last: list[float] = []
    first: list[float] = []
    partial = 0
    for k, intended in sent.items():
        if not (t0 <= intended <= t1):
            continue
        e = seen.get(k)
        if e is None or e[0] < s:
            partial += 1
            continue
        first.append(e[1] - intended)
        last.append(e[2] - intended)
    return {
        "updates": len(last),
        "incomplete": partial,
        "to_last": lat_summary(last),
        "to_first": lat_summary(first),
    }


async def fanout_mode(a: Any, log: Log) -> dict[str, Any]:
    S = a.spectators
    P.raise_nofile(S * 2 + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, P.SERVER_FLAGS + list(a.server_arg or []))
    res: dict[str, Any] = {"mode": "fanout", "spectators": S, "update_rate": a.update_rate, "game": a.game}
    try:
        # --- race server: one race of `players` bots, S spectators
        gen = MoveGen(server.host, server.port, 1, a.players, a.game, seed=a.seed)
        await gen.setup()
        race = gen.groups[0].race
        seen: dict[Any, list[float]] = {}

        def key(msg: dict[str, Any]) -> Hashable | None:
            return (msg["player"], msg["n"]) if msg.get("t") == "progress" else None

        watchers = [_Watcher(seen, key) for _ in range(S)]
        sem = asyncio.Semaphore(100)

        async def watch(w: _Watcher, i: int) -> None:
            async with sem:
                ws = w.ws = await open_ws(
                    server.host, server.port, "/ws", on_message=w.on_message, timeout=60
                )
                ws.send(encode({"t": "hello", "v": 1, "name": f"spec-{i}"}))
                async with asyncio.timeout(60):
                    await w.fut
                w.fut = asyncio.get_running_loop().create_future()
                ws.send(encode({"t": "spectate", "rid": 1, "race": race}))
                async with asyncio.timeout(60):
                    await w.fut

        t = now()
        await asyncio.gather(*(watch(w, i) for i, w in enumerate(watchers)))
        log(f"{S} spectators on race {race} in {now() - t:.1f}s; moves at {a.update_rate}/s…")
        gen.sent_log = {}
        c0 = server.cpu()
        gen.set_open(a.update_rate)
        t0 = now()
        await asyncio.sleep(a.duration)
        t1 = now()
        await gen.quiesce()
        await asyncio.sleep(0.2)
        c1 = server.cpu()
        r = _fan_summary(gen.sent_log, seen, S, t0, t1)
        moves = len(gen.sent_log)
        r["cpu_us_per_update"] = {n: round((c1[n] - c0[n]) / max(1, moves) * 1e6, 1) for n in c0}
        res["server"] = r
        log(
            f"  server: last spectator p50 {r['to_last']['p50_ms']} ms, max {r['to_last']['max_ms']} ms "
            f"({r['updates']} updates, {r['incomplete']} incomplete)"
        )
        close_all(w.ws for w in watchers)
        gen.close()
        await asyncio.sleep(0.2)

        # --- echo baseline: S listeners on /fan, one sender, progress-sized messages
        eseen: dict[Any, list[float]] = {}
        probe = encode(
            {
                "t": "progress",
                "race": race,
                "ver": 1234,
                "player": gen.groups[0].bots[0].pid,
                "n": 1234,
                "home": 12,
                "total": 52,
                "status": "playing",
                "at": int(time.time() * 1000),
            }
        )
        res["message_bytes"] = len(probe)
        ewatch = [_Watcher(eseen, lambda msg: msg.get("n")) for _ in range(S)]

        async def ewatch_one(w: _Watcher) -> None:
            async with sem:
                w.ws = await open_ws(echo.host, echo.port, "/fan", on_message=w.on_message, timeout=60)

        await asyncio.gather(*(ewatch_one(w) for w in ewatch))
        sender = await open_ws(echo.host, echo.port, "/fan")
        await asyncio.sleep(0.2)
        esent: dict[Any, float] = {}
        c0 = echo.cpu()
        t0 = now()
        i = 0
        interval = 1.0 / a.update_rate
        due = t0
        while now() - t0 < a.duration:
            i += 1
            esent[i] = due
            base = decode(probe)
            base["n"] = i
            sender.send(encode(base))
            due += interval
            await asyncio.sleep(max(0.0, due - now()))
        t1 = now()
        await asyncio.sleep(0.5)
        c1 = echo.cpu()
        r = _fan_summary(esent, eseen, S, t0, t1)
        r["cpu_us_per_update"] = {n: round((c1[n] - c0[n]) / max(1, i) * 1e6, 1) for n in c0}
        res["echo"] = r
        log(
            f"  echo broadcast: last listener p50 {r['to_last']['p50_ms']} ms, max {r['to_last']['max_ms']} ms"
        )
        sender.close()
        close_all(w.ws for w in ewatch)
        await asyncio.sleep(0.3)
    finally:
        server.stop()
        echo.stop()
    return res
