"""A process that ends the same rated races as another (tests/ratings/test_processes.py).

Usage: python record_races.py REDIS_URL GAME N PLAYER...
Prints "ready", waits for the key ``go``, records races 0..N-1 (race i:
the players ranked by a fixed rotation) and prints how many it applied.
"""

from __future__ import annotations

import asyncio
import sys
import time

import redis.asyncio as aioredis

from server.ratings.rating import Entrant
from server.ratings.store import Ratings


def entrants_of(players: list[str], i: int) -> list[Entrant]:
    n = len(players)
    return [Entrant(p, "s-" + p, 1 + (k + i) % n) for k, p in enumerate(players)]


async def main(url: str, game: str, n: int, players: list[str]) -> None:
    r = aioredis.Redis.from_url(url)
    st = Ratings(r)
    print("ready", flush=True)
    deadline = time.monotonic() + 30
    while not await r.exists("go"):
        if time.monotonic() > deadline:
            raise SystemExit("no go")
        await asyncio.sleep(0.001)
    applied = 0
    for i in range(n):
        out = await st.record_race(game, f"race{i}", entrants_of(players, i), ended_ms=1_700_000_000_000 + i)
        applied += out.applied
    print(applied, flush=True)
    await r.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]))
