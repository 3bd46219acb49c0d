"""The arena pages' tests: their server, and the arena races they set up through bots
(tests/web/conftest.py `make_bot`) before a page looks at the arena (one race per bot, then
the arena ends)."""

from __future__ import annotations

import threading
from pathlib import Path

from protocol import messages as m

from .conftest import Server


def arena_server(tmp: Path, *, countdown_ms: int) -> Server:
    """A server where clients may create arenas, none is scheduled, with fast arena loops."""
    return Server(
        tmp,
        countdown_ms=countdown_ms,
        arena_create=1,
        arena_schedule="off",
        arena_tick_ms=200,
        arena_update_ms=200,
    )


async def race_once(c, arena: str, *, moves: int) -> None:
    """Join, get paired, withdraw (the race still counts), make `moves` draws, finish."""
    await c.request(m.ArenaJoin(arena=arena))
    snap = await c.wait_for(
        m.RaceSnapshot, lambda s: any(p.player == c.player for p in s.players), timeout=30
    )
    await c.request(m.ArenaWithdraw(arena=arena))
    await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=30)
    for _ in range(moves):
        await c.move(snap.race, "draw")
    await c.finish(snap.race)
    await c.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=30)


def account_and_rival_race_a_short_arena(
    owner, rival, *, account: str, arena: str, name: str, moves: tuple[int, int]
) -> None:
    """`owner` claims the account `account` and creates `arena` (Racing Aces, named `name`, over
    10 s after its creation); `owner` and `rival` then race it once, together, making
    `moves[0]` and `moves[1]` draws."""
    owner.call(lambda c: c.request(m.Claim(name=account, password="correct horse")))
    owner.call(
        lambda c: c.request(m.ArenaCreate(arena=arena, game="racing-aces", duration_ms=10_000, name=name))
    )
    threads = [
        threading.Thread(target=lambda b=bot, n=n: b.call(lambda c: race_once(c, arena, moves=n), timeout=60))
        for bot, n in zip((owner, rival), moves)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
