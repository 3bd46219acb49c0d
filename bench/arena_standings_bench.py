"""Arena live standings: how long a result takes to reach the players watching the standings.

A real ``solrace serve`` (a subprocess on 127.0.0.1, its own redis-server,
no certify or bot workers) holds one running arena. ``--players`` players
join it over the wire (hello, ``arena_join``); ``--watchers`` of them stay
connected and watch the standings (``arena_standings`` with ``watch: true``,
top 10 and 2 rows around their own: each watcher's update is its own read).
The other players close their connection once joined.

The results come from this process, as they would from another server
process: an ``ArenaStore`` on the same Redis pairs the joined players (every
one of them is then in a race, as in a busy arena) and applies race results
with the store's own ``prepare``/``commit``; ``commit`` is the one script
that writes the standings and publishes on the arena's live channel, which
the server follows. The server's own arena loop is parked (``--arena-tick-ms``
one hour) so it pairs nothing itself: the races are not played, only their
results are applied, because 500 races played by 1,000 bots would measure the
bots on this machine rather than the standings.

Each measured update: the arena leader's race is applied with the leader
winning, at a random moment within one ``ARENA_UPDATE`` interval (the change
falls anywhere in the server's coalescing period, as real results do); the
latency of a watcher is from just before ``commit`` to the arrival of the
first ``arena_update`` whose first row shows the leader's new points. Then
the leader is paired again (its next race) and the next update is measured
once every watcher has seen that pairing.

Reported: latency over every (update, watcher) pair (median, 90th percentile,
max), the per-update first and last arrival (medians), and the server's and
redis-server's CPU per ``arena_update`` frame received by a watcher during
the measured phase (utime+stime from /proc). Run with

    .venv/bin/python bench/arena_standings_bench.py                 # 1,000 players, 500 watchers
    .venv/bin/python bench/arena_standings_bench.py --players 20 --watchers 5 --updates 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from client.loadgen import procs as P
from client.loadgen.bot import decode, encode
from client.loadgen.wsclient import WSClient, open_ws
from server.arena import ArenaStore, Prepared
from server.storage.embedded_redis import EmbeddedRedis

ARENA = "bench"
GAME = "racing-aces"
TOP, AROUND = 10, 2
REMATCH_WAIT_MS = 3_100  # past the pairing's full wait (3 s): the leader may race the same player again
SETUP_CONCURRENCY = 50

Update = dict[str, Any]


class Conn:
    """One player's connection on the lean load-generator client: requests by rid, and every
    ``arena_update`` handed to ``on_update`` as it arrives."""

    def __init__(self, index: int, on_update: Callable[[Conn, Update], None]) -> None:
        self.index = index
        self.on_update = on_update
        self.ws: WSClient | None = None
        self.player = ""
        self.rid = 0
        self.futs: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last: Update | None = None  # the last arena_update received

    async def open(self, host: str, port: int, name: str) -> None:
        self.ws = await open_ws(
            host, port, "/ws", on_message=self.on_message, on_close=self.on_close, timeout=60
        )
        welcome = await self.request({"t": "hello", "v": 1, "name": name})
        self.player = welcome["player"]

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        assert self.ws is not None
        self.rid += 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.futs[self.rid] = fut
        self.ws.send(encode({**msg, "rid": self.rid}))
        async with asyncio.timeout(60):
            return await fut

    def on_message(self, data: bytes) -> None:
        msg = decode(data)
        if msg["t"] == "arena_update":
            self.last = msg
            self.on_update(self, msg)
            return
        fut = self.futs.pop(msg.get("rid") or 0, None)
        if fut is not None and not fut.done():
            if msg["t"] == "error":
                fut.set_exception(RuntimeError(f"{msg.get('code')}: {msg.get('message')}"))
            else:
                fut.set_result(msg)

    def on_close(self) -> None:
        for fut in self.futs.values():
            if not fut.done():
                fut.set_exception(ConnectionError("closed"))
        self.futs.clear()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


class Target:
    """What every watcher waits for: its first ``arena_update`` that ``matches``."""

    def __init__(self, matches: Callable[[Update], bool], watchers: int) -> None:
        self.matches = matches
        self.watchers = watchers
        self.arrived: dict[int, float] = {}  # watcher index -> perf_counter at arrival
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def see(self, conn: Conn, update: Update) -> None:
        if conn.index not in self.arrived and self.matches(update):
            self.arrived[conn.index] = time.perf_counter()
            if len(self.arrived) == self.watchers and not self.done.done():
                self.done.set_result(None)


class Bench:
    def __init__(self, watchers: int) -> None:
        self.watchers: list[Conn] = []
        self.n_watchers = watchers
        self.target: Target | None = None
        self.frames = 0  # arena_update frames received by the watchers

    def on_update(self, conn: Conn, update: Update) -> None:
        self.frames += 1
        if self.target is not None:
            self.target.see(conn, update)

    async def wait_all(self, matches: Callable[[Update], bool], timeout: float) -> Target:
        """Until every watcher has an update that ``matches`` (its last one counts: it may
        have come already)."""
        t = self.target = Target(matches, self.n_watchers)
        for c in self.watchers:
            if c.last is not None:
                t.see(c, c.last)
        if len(t.arrived) < t.watchers:
            async with asyncio.timeout(timeout):
                await t.done
        return t


def leader_wins(players: list[str], leader: str, at_ms: int) -> list[dict[str, Any]]:
    """A race's ranking rows: ``leader`` finishes the deal, the others time out short of it."""
    rows = []
    for p in players:
        won = p == leader
        rows.append(
            {
                "player": p,
                "name": p,
                "status": "won" if won else "timeout",
                "won": won,
                "home": 52 if won else 10,
                "moves": 90 if won else 30,
                "time_ms": at_ms if won else None,
                "home_at_ms": at_ms,
            }
        )
    return rows


def featuring(race: str | None) -> Callable[[Update], bool]:
    return lambda u: u.get("featured") == race


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def join_all(bench: Bench, host: str, port: int, players: int, log: Callable[[str], None]) -> None:
    """``players`` join; the first ``bench.n_watchers`` stay connected and watch the standings."""
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(i: int) -> None:
        async with gate:
            c = Conn(i, bench.on_update)
            await c.open(host, port, f"p{i:04d}")
            await c.request({"t": "arena_join", "arena": ARENA})
            if i < bench.n_watchers:
                await c.request(
                    {"t": "arena_standings", "arena": ARENA, "top": TOP, "around": AROUND, "watch": True}
                )
                bench.watchers.append(c)
            else:
                c.close()

    t = time.perf_counter()
    # those who only join first, so that the watchers' connections are not counted in their time
    await asyncio.gather(*(one(i) for i in range(bench.n_watchers, players)))
    log(f"  {players - bench.n_watchers} players joined and left in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(bench.n_watchers)))
    bench.watchers.sort(key=lambda c: c.index)
    log(f"  {bench.n_watchers} players joined and watch, in {time.perf_counter() - t:.1f} s")


async def measure(
    bench: Bench, store: ArenaStore, skew: list[int], args: argparse.Namespace, log: Callable[[str], None]
) -> tuple[list[list[float]], int]:
    """The measured updates: each watcher's latency (s) per update, and watchers that missed one."""
    interval = args.update_ms / 1000
    timeout = 3 * interval + 60
    latencies: list[list[float]] = []
    missed = 0
    for k in range(args.updates):
        race = await store.featured(ARENA)
        assert race is not None, "no race in progress"
        players = list((await store.formed(ARENA))[race]["players"])
        board = await store.standings(ARENA, 1, None, 0)
        leader = board.top[0].standing.player
        assert leader in players, (leader, players)
        prepared = await store.prepare(ARENA, race, leader_wins(players, leader, 60_000))
        assert isinstance(prepared, Prepared)
        points = next(s.points for s in prepared.after if s.player == leader)

        def shows(u: Update, leader: str = leader, points: int = points) -> bool:
            top = u.get("top") or []
            return bool(top) and top[0]["player"] == leader and top[0]["points"] == points

        await asyncio.sleep(random.uniform(0, interval))  # anywhere in the server's coalescing period
        target = bench.target = Target(shows, bench.n_watchers)
        t0 = time.perf_counter()
        out = await store.commit(prepared)
        assert out.status == "ok", out
        try:
            async with asyncio.timeout(timeout):
                await target.done
        except TimeoutError:
            missed += bench.n_watchers - len(target.arrived)
        lat = [t - t0 for t in target.arrived.values()]
        latencies.append(lat)
        log(
            f"  update {k + 1}/{args.updates}: {leader} {points} pts, first {min(lat) * 1000:.0f} ms,"
            f" last {max(lat) * 1000:.0f} ms"
        )
        # the leader's next race, and every watcher shown it before the next result
        skew[0] += REMATCH_WAIT_MS
        formed = await store.pair(ARENA, 2)
        assert any(leader in f.players for f in formed), formed
        featured = await store.featured(ARENA)
        await bench.wait_all(featuring(featured), timeout)
    return latencies, missed


async def run(args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    P.raise_nofile(args.watchers + 500)
    with tempfile.TemporaryDirectory(prefix="solrace-arena-bench-") as tmp:
        redis_proc = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        server: P.Proc | None = None
        r = aioredis.Redis.from_url(redis_proc.url)
        try:
            server = P.start_server(
                redis_proc.url,
                [
                    "--max-conn-per-addr",
                    "100000",
                    "--arena-create",
                    "1",
                    "--arena-schedule",
                    "off",
                    "--arena-tick-ms",
                    "3600000",  # parked: this process pairs and applies (the module docstring)
                    "--arena-update-ms",
                    str(args.update_ms),
                ],
            )
            assert redis_proc.proc is not None
            server.extra["redis-server"] = redis_proc.proc.pid
            log(f"server on {server.host}:{server.port}, ARENA_UPDATE {args.update_ms} ms")
            bench = Bench(args.watchers)
            host = Conn(-1, bench.on_update)
            await host.open(server.host, server.port, "host")
            await host.request(
                {
                    "t": "arena_create",
                    "arena": ARENA,
                    "game": GAME,
                    "duration_ms": 3_600_000,
                    "berserk": False,
                }
            )
            host.close()
            await join_all(bench, server.host, server.port, args.players, log)

            skew = [0]  # ms added to this process's arena clock: the rematch wait passes at once
            store = ArenaStore(r, clock=lambda: int(time.time() * 1000) + skew[0])
            formed = await store.pair(ARENA, 2)
            log(f"  paired {len(formed)} races")
            featured = await store.featured(ARENA)
            timeout = 3 * args.update_ms / 1000 + 60
            await bench.wait_all(
                lambda u: u.get("featured") == featured and u.get("count") == args.players, timeout
            )

            cpu0, wait0, frames0, t0 = server.cpu(), server.runq_wait(), bench.frames, time.perf_counter()
            latencies, missed = await measure(bench, store, skew, args, log)
            cpu1, wait1, frames1, wall = (
                server.cpu(),
                server.runq_wait(),
                bench.frames,
                time.perf_counter() - t0,
            )
            load = Path("/proc/loadavg").read_text().split()[0]
            for c in bench.watchers:
                c.close()
        finally:
            await r.aclose()
            if server is not None:
                server.stop()
            redis_proc.stop()

    frames = frames1 - frames0
    flat = [x * 1000 for lat in latencies for x in lat]
    firsts = [min(lat) * 1000 for lat in latencies if lat]
    lasts = [max(lat) * 1000 for lat in latencies if lat]
    return {
        "players": args.players,
        "watchers": args.watchers,
        "updates": args.updates,
        "arena_update_ms": args.update_ms,
        "races_formed": len(formed),
        "latency_ms": {
            "p50": round(statistics.median(flat), 1),
            "p90": round(pct(flat, 0.9), 1),
            "max": round(max(flat), 1),
            "min": round(min(flat), 1),
        },
        "first_watcher_p50_ms": round(statistics.median(firsts), 1),
        "last_watcher_p50_ms": round(statistics.median(lasts), 1),
        "missed": missed,
        "frames": frames,
        "wall_s": round(wall, 1),
        "cpu_us_per_frame": {k: round((cpu1[k] - cpu0[k]) * 1e6 / max(1, frames), 1) for k in cpu0},
        # the share of the measured time the server's main thread was runnable but had no CPU
        "server_runq_wait_share": round((wait1["server"] - wait0["server"]) / wall, 2),
        "loadavg_1min": float(load),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--watchers", type=int, default=500, help="players that stay connected and watch")
    ap.add_argument("--updates", type=int, default=20, help="measured standings changes")
    ap.add_argument("--update-ms", type=int, default=1000, help="the server's ARENA_UPDATE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    if not 2 <= args.watchers <= args.players:
        ap.error("need 2 <= --watchers <= --players")
    random.seed(args.seed)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    res = asyncio.run(run(args, log))
    lat = res["latency_ms"]
    print(
        f"{res['players']} players, {res['watchers']} watchers, {res['updates']} updates,"
        f" ARENA_UPDATE {res['arena_update_ms']} ms"
    )
    print(
        f"latency change -> watcher: median {lat['p50']} ms, p90 {lat['p90']} ms, max {lat['max']} ms"
        f" (min {lat['min']} ms); per update, first watcher {res['first_watcher_p50_ms']} ms,"
        f" last {res['last_watcher_p50_ms']} ms (medians); missed {res['missed']}"
    )
    cpu = ", ".join(f"{k} {v} µs" for k, v in res["cpu_us_per_frame"].items())
    print(f"CPU per arena_update frame to a watcher: {cpu} ({res['frames']} frames)")
    print(
        f"server waited for a CPU {res['server_runq_wait_share']:.0%} of the time;"
        f" machine load average {res['loadavg_1min']}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
