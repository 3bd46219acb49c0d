"""A stand-in server process for the arena kill test: pairs and scores one arena.

    python tests/arena/arena_driver.py REDIS_URL ARENA_ID

Every tick it pairs the arena's free players and applies every formed race
whose simulated end has come (`race_end`, `race_rows`: drawn from the race
id, so every process agrees on a race's outcome). It keeps nothing of its
own: races formed by a process that died are found in Redis and finished by
the others. It prints "ready" once started, waits for the arena to exist,
and exits after finalizing it.
"""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

import redis.asyncio as aioredis

from server.arena import ArenaStore
from server.arena.pairing import Window

TICK_S = 0.02
WINDOW = Window(base_window=4, widen_per_s=20.0, max_wait_ms=300)


def race_end(race: str, formed: int) -> int:
    return formed + random.Random("end" + race).randint(50, 250)


def race_rows(race: str, players: list[str]) -> list[dict[str, Any]]:
    rng = random.Random(race)
    rows: list[dict[str, Any]] = []
    for p in players:
        if rng.random() < 0.25:
            t = rng.choice((40_000, 50_000))
            rows.append(
                {
                    "player": p,
                    "name": p,
                    "status": "won",
                    "won": True,
                    "home": 52,
                    "moves": 80,
                    "time_ms": t,
                    "home_at_ms": t,
                }
            )
        else:
            rows.append(
                {
                    "player": p,
                    "name": p,
                    "status": "timeout",
                    "won": False,
                    "home": rng.randint(0, 51),
                    "moves": rng.randint(1, 60),
                    "time_ms": None,
                    "home_at_ms": rng.choice((1000, 2000)),
                }
            )
    return rows


async def main(url: str, arena_id: str) -> None:
    r = aioredis.Redis.from_url(url)
    store = ArenaStore(r, window=WINDOW)
    print("ready", flush=True)
    info = await store.get(arena_id)
    while info is None:  # created by the test once every process is up
        await asyncio.sleep(TICK_S)
        info = await store.get(arena_id)
    while True:
        # Read each tick: the kill test ends the arena early by moving its stored end.
        current = await store.get(arena_id)
        if current is None or current.finalized is not None:
            break
        await store.tick(current.arena)
        now = store.clock()
        for race, rec in (await store.formed(arena_id)).items():
            if race_end(race, rec["formed"]) <= now:
                await store.apply(arena_id, race, race_rows(race, rec["players"]))
        await asyncio.sleep(TICK_S)
    await r.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
