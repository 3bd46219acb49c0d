"""A quick-match entry whose server process was killed outright (kill -9) seats nobody.

A killed process closes none of its connections, so the entries they held were never let go:
the next player to queue on another process used to be seated at once with that ghost, and
raced nobody for the whole clock. Each process now marks itself alive in the queues where its
connections hold entries (server/storage/quick.lua, server/handlers/quick_match.py): a group is
formed only of entries with a holder alive, and a dead process's entries leave the queue, their
seats given back, once its mark lapsed long enough (a stalled process's come back).
The first tests kill a real `solrace serve` on the same Redis; the last ones drive the queue's
script directly, with process marks moved in time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis_replies import text
from test_server_quick_queue import GAME, queued, waiting
from waiting import until
from wsclient import Raw, player

from server.storage import keys
from server.storage import players as P
from server.storage.bots import REQUESTS, BotQueue, BotRequest, now_ms


async def redis_ms(r: aioredis.Redis) -> int:
    sec, usec = await r.time()
    return int(sec) * 1000 + int(usec) // 1000


def marks_key(seats: int = 2) -> str:
    """The queue's marks hash (keys.quick_marks, checked below)."""
    return "{" + keys.quick_key(GAME, seats) + "}:live"


async def holder_processes(r: aioredis.Redis, pid: str, seats: int = 2) -> list[str]:
    """The server processes holding `pid`'s entry (a holder id is "PROC/CONN")."""
    holders = [text(h) for h in await r.smembers(keys.quick_holders(GAME, seats, pid))]
    assert holders
    return [h.partition("/")[0] for h in holders if "/" in h]


async def killed(proc: subprocess.Popen[str], *clients: Raw) -> None:
    os.kill(proc.pid, signal.SIGKILL)  # no close, no clean-up: the process is gone
    await asyncio.to_thread(proc.wait)
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def marks_lapsed(r: aioredis.Redis, procs: list[str], seats: int = 2, ago_ms: int = 0) -> bool:
    """Every one of these processes' marks lapsed `ago_ms` ago (or more)."""
    now = await redis_ms(r)
    for proc in procs:
        until_ms = await r.hget(marks_key(seats), proc)
        if until_ms is None or int(until_ms) + ago_ms >= now:
            return False
    return True


async def test_a_killed_process_s_entry_seats_nobody(make_server, serve_process):
    app = await make_server(quick_bot_after_s=0)
    url, proc = serve_process()
    r: aioredis.Redis = app.store.redis
    ghost = await player(url, "ghost")
    await queued(ghost)
    dead = await holder_processes(r, ghost.player)
    await killed(proc, ghost)
    # Its mark lapses QUICK_LIVE_MS after its last renewal, without anyone's help.
    await until(lambda: marks_lapsed(r, dead), what="the killed process's mark lapsed")

    lively = await player(app.ws_url, "lively")
    await queued(lively)  # answered once the queue's script has run: nobody was taken out
    assert await waiting(app) == [ghost.player, lively.player]  # the ghost is passed over
    zed = await player(app.ws_url, "zed")
    await queued(zed)
    race = await zed.wait("race")
    assert {p["player"] for p in race["players"]} == {lively.player, zed.player}
    assert (await lively.wait("race"))["race"] == race["race"]
    assert await waiting(app) == [ghost.player]  # it waits, passed over, until its drop time

    back = await Raw.open(app.ws_url)  # the ghost's player comes back: seated nowhere
    assert (await back.hello(token=ghost.token))["races"] == []
    await asyncio.gather(lively.close(), zed.close(), back.close())


async def test_an_entry_waiting_longer_than_a_mark_lasts_is_still_seated(make_server, serve_process):
    """A live process renews its mark every second while its connections wait: its entries
    never lapse, however long they wait (here past the first mark's lifetime)."""
    app = await make_server(quick_bot_after_s=0)
    url, _proc = serve_process("--quick-bot-after-s", "0")
    r: aioredis.Redis = app.store.redis
    ada = await player(url, "ada")
    await queued(ada)
    (proc,) = await holder_processes(r, ada.player)
    first = int(await r.hget(marks_key(), proc) or 0)

    async def past_the_first_mark() -> bool:
        return await redis_ms(r) > first

    await until(past_the_first_mark, what="the first mark's lifetime over")
    bob = await player(app.ws_url, "bob")
    await queued(bob)
    race = await bob.wait("race")
    assert {p["player"] for p in race["players"]} == {ada.player, bob.player}
    await asyncio.gather(ada.close(), bob.close())


async def test_a_dead_process_s_entry_leaves_with_its_seat(make_server, serve_process, monkeypatch):
    monkeypatch.setattr(P, "QUICK_DROP_MS", 1000, raising=False)  # dropped 1 s after the lapse here
    app = await make_server(quick_bot_after_s=0)
    url, proc = serve_process()
    r: aioredis.Redis = app.store.redis
    ghost = await player(url, "ghost")
    await queued(ghost)
    hold = P.quick_hold(GAME, 2)
    assert hold.encode() in await r.smembers(keys.seats_key(ghost.player))  # its entry's seat
    dead = await holder_processes(r, ghost.player)
    await killed(proc, ghost)
    await until(lambda: marks_lapsed(r, dead, ago_ms=1000), what="the killed process's mark lapsed 1 s ago")
    lively = await player(app.ws_url, "lively")
    await queued(lively)
    assert await waiting(app) == [lively.player]  # the ghost left, and took nobody with it
    assert not await r.exists(
        keys.quick_holders(GAME, 2, ghost.player), keys.quick_tokens(GAME, 2, ghost.player)
    )
    # Its seat is given back: the player is free to queue, create or join up to their limit.
    await until(
        lambda: _not_member(r, keys.seats_key(ghost.player), hold), what="the ghost's seat given back"
    )
    await lively.close()


async def _not_member(r: aioredis.Redis, key: str, member: str) -> bool:
    return member.encode() not in await r.smembers(key)


async def test_a_lonely_player_beside_a_ghost_gets_bots_for_every_empty_seat(make_server, serve_process):
    """A ghost does not count as a player the bots need not replace: else the group stays a
    bot short and the lonely player waits for good."""
    app = await make_server(quick_bot_after_s=1)
    url, proc = serve_process()
    r: aioredis.Redis = app.store.redis
    ghost = await player(url, "ghost")
    await queued(ghost, seats=3)
    dead = await holder_processes(r, ghost.player, seats=3)
    await killed(proc, ghost)
    await until(lambda: marks_lapsed(r, dead, seats=3), what="the killed process's mark lapsed")
    lively = await player(app.ws_url, "lively")
    await queued(lively, seats=3)
    q = BotQueue(r)

    async def asked() -> list[Any]:
        await q.heartbeat("w1", await now_ms(r), 4)  # a worker with free slots, alive
        return list(await r.lrange(REQUESTS, 0, -1))

    requests = [BotRequest.from_json(raw) for raw in await until(asked, what="bots asked for lively")]
    assert [(b.kind, b.game, b.seats) for b in requests] == [("quick", GAME, 3)] * 2
    await lively.close()


# --- the queue's script, with the processes' marks moved in time ----------------------------


@pytest.fixture
async def store(fast_settings):
    from server.storage.store import Store

    store = Store(fast_settings.redis, fast_settings)
    await store.start()
    yield store
    await store.close()


async def set_mark(store: Any, proc: str, at_ms: int, seats: int = 2) -> None:
    await store.redis.hset(marks_key(seats), proc, at_ms)


async def test_a_stalled_process_s_entries_wait_and_come_back_when_it_marks_again(store):
    assert await store.quick_push(GAME, 2, "pa", "pA/ca", "ta") == {}
    await set_mark(store, "pA", await redis_ms(store.redis) - 1)  # stopped marking just now
    assert await store.quick_push(GAME, 2, "pb", "pB/cb", "tb") == {}  # pa passed over, kept
    assert await store.quick_waiting(GAME, 2, "pb") == (True, 1)
    assert await store.quick_waiting(GAME, 2, "pa") == (True, 1)
    group = await store.quick_keep(GAME, 2, "pA")  # it marks itself alive again: a full group
    assert list(group) == ["pa", "pb"]
    assert group["pa"].holders == ("pA/ca",) and group["pa"].claims == ("ta",)
    assert await store.quick_waiting(GAME, 2, "pa") == (False, 0)


async def test_an_entry_held_alive_elsewhere_is_seated_and_leaves_with_its_last_live_holder(store):
    """A player queued from two processes: the one that died does not keep the entry from a
    group, and once the live connection closes too the entry leaves (its claims given back)."""
    assert await store.quick_push(GAME, 3, "pa", "pA/c1", "t1") == {}
    assert await store.quick_push(GAME, 3, "pa", "pB/c2", "t2") == {}
    assert await store.quick_push(GAME, 3, "pb", "pB/c3", "t3") == {}
    await set_mark(store, "pA", 0, seats=3)  # gone for good long ago
    assert sorted(await store.quick_release(GAME, 3, "pa", "pB/c2") or []) == ["t1", "t2"]
    assert [p.decode() for p in await store.redis.lrange(keys.quick_key(GAME, 3), 0, -1)] == ["pb"]


async def test_holders_named_without_a_process_count_as_alive(store):
    """Entries queued by a version that named no process are seated as before."""
    assert await store.quick_push(GAME, 2, "pa", "ca", "ta") == {}
    assert set(await store.quick_push(GAME, 2, "pb", "cb", "tb")) == {"pa", "pb"}


async def test_the_marks_share_the_queue_s_slot():
    from redis.crc import key_slot

    from protocol import messages as m
    from protocol.rules import GAMES

    for game in GAMES:
        for seats in range(m.MIN_QUICK_SEATS, m.MAX_SEATS + 1):
            assert key_slot(keys.quick_marks(game, seats).encode()) == key_slot(
                keys.quick_key(game, seats).encode()
            )
    assert keys.quick_marks(GAME, 3) == marks_key(3)
