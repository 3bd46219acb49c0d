"""The casual quick-match entry is the player's, not a connection's (docs/protocol.md §3 `quick`).

A player may wait from several connections with the same token, on several
processes: the entry stays while one of the connections that queued for it is
open, and `unqueue` from any of the player's connections takes it out. As the
rated pool does it (tests/server/test_server_rated_pool.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.crc import key_slot
from test_server_rated_pool import close, closes_seen
from waiting import until
from wsclient import Raw, player

from server.storage import keys

GAME = "fours-up"


async def same_player(url: str, c: Raw) -> Raw:
    """Another connection with `c`'s (guest) token, to `url`: the same player."""
    other = await Raw.open(url)
    await other.hello(token=c.token)
    assert other.player == c.player
    return other


async def queued(c: Raw, seats: int = 2) -> None:
    reply = await c.request("quick", game=GAME, seats=seats)
    assert reply["t"] == "queued" and reply["seats"] == seats, reply


async def waiting(app: Any, seats: int = 2) -> list[str]:
    """The players in the casual queue of (GAME, seats), first come first."""
    return [p.decode() for p in await app.store.redis.lrange(keys.quick_key(GAME, seats), 0, -1)]


def seated(frame: dict[str, Any]) -> bool:
    return frame.get("t") == "race" and frame.get("status") in ("countdown", "running")


async def test_the_entry_stays_while_another_connection_that_queued_is_open(make_server):
    app1, app2 = await make_server(), await make_server()
    seen = closes_seen(app1, app2)
    ada = await player(app1.ws_url, "ada")
    twin = await same_player(app2.ws_url, ada)  # the same player, on the other process
    for c in (ada, twin):
        await queued(c)
    assert await waiting(app1) == [ada.player]
    await close(ada, seen)
    assert await waiting(app1) == [twin.player]  # twin still waits
    bob = await player(app1.ws_url, "bob")
    await queued(bob)
    snaps = [await c.wait(seated) for c in (twin, bob)]
    assert snaps[0]["race"] == snaps[1]["race"]
    assert {p["player"] for p in snaps[0]["players"]} == {twin.player, bob.player}
    await asyncio.gather(twin.close(), bob.close())


async def test_unqueue_from_any_connection_of_the_player_leaves_the_queue(make_server):
    app1, app2 = await make_server(), await make_server()
    seen = closes_seen(app1, app2)
    ada = await player(app1.ws_url, "ada")
    pid = ada.player
    here, there = await same_player(app1.ws_url, ada), await same_player(app2.ws_url, ada)
    for asker in (there, here):  # neither queued: the entry is ada's, the player's
        await queued(ada)
        assert await waiting(app1) == [pid]
        assert (await asker.request("unqueue", game=GAME))["t"] == "ok"
        assert await waiting(app1) == []  # gone by the time of the `ok`
    # Gone for good: nobody is seated with it, and no connection's close brings anything back.
    bob = await player(app2.ws_url, "bob")
    await queued(bob)
    assert await waiting(app1) == [bob.player]
    assert not [f for f in ada.unread if seated(f)]
    await close(ada, seen)
    assert await waiting(app1) == [bob.player]
    await asyncio.gather(here.close(), there.close(), bob.close())


async def test_unqueue_leaves_every_size_of_the_game(make_server):
    app1, app2 = await make_server(), await make_server()
    ada = await player(app1.ws_url, "ada")
    twin, idle = await same_player(app2.ws_url, ada), await same_player(app2.ws_url, ada)
    await queued(ada, 2)
    await queued(twin, 3)
    await queued(ada, 4)
    assert [await waiting(app1, n) for n in (2, 3, 4)] == [[ada.player]] * 3
    assert (await idle.request("unqueue", game=GAME))["t"] == "ok"
    assert [await waiting(app1, n) for n in (2, 3, 4)] == [[], [], []]
    for n in (2, 3, 4):
        assert not await app1.store.redis.exists(keys.quick_holders(GAME, n, ada.player))
    # Another game's entry is not touched.
    assert (await ada.request("quick", game="racing-aces"))["t"] == "queued"
    assert (await idle.request("unqueue", game=GAME))["t"] == "ok"
    assert await app1.store.redis.lrange(keys.quick_key("racing-aces", 2), 0, -1) == [ada.player.encode()]
    await asyncio.gather(ada.close(), twin.close(), idle.close())


async def test_the_entry_leaves_with_the_last_connection_that_queued(make_server):
    app1, app2 = await make_server(), await make_server()
    seen = closes_seen(app1, app2)
    ada = await player(app1.ws_url, "ada")
    pid = ada.player
    twin, here = await same_player(app2.ws_url, ada), await same_player(app1.ws_url, ada)
    idle = await same_player(app2.ws_url, ada)  # never queues: it does not keep the entry
    for c in (ada, twin, here):
        await queued(c)
    await close(twin, seen)
    await close(ada, seen)
    assert await waiting(app1) == [pid]
    await close(here, seen)
    assert await waiting(app1) == []
    assert not await app1.store.redis.exists(keys.quick_holders(GAME, 2, pid))
    # Queued again, from the idle connection this time: its entry, whoever else closes.
    await queued(idle)
    await close(await same_player(app1.ws_url, ada), seen)
    assert await waiting(app1) == [pid]
    await close(idle, seen)
    assert await waiting(app1) == []
    # Two holders closing at once, on two processes: the entry leaves with them.
    one, two = await same_player(app1.ws_url, ada), await same_player(app2.ws_url, ada)
    for c in (one, two):
        await queued(c)
    ports = {c.ws.local_address[1] for c in (one, two)}
    await asyncio.gather(one.close(), two.close())
    await until(lambda: ports <= seen, what="both clean-ups")
    assert await waiting(app1) == []


async def test_seating_clears_the_holders(make_server):
    app1, app2 = await make_server(), await make_server()
    seen = closes_seen(app1, app2)
    ada = await player(app1.ws_url, "ada")
    pid = ada.player
    twin = await same_player(app2.ws_url, ada)
    for c in (ada, twin):
        await queued(c)
    held = keys.quick_holders(GAME, 2, pid)
    assert key_slot(held.encode()) == key_slot(keys.quick_key(GAME, 2).encode())  # one slot
    assert 0 < await app1.store.redis.ttl(held) <= await app1.store.redis.ttl(keys.quick_key(GAME, 2))
    bob = await player(app2.ws_url, "bob")
    await queued(bob)
    for c in (ada, twin, bob):
        await c.wait(seated)
    assert await waiting(app1) == []
    assert not await app1.store.redis.exists(held)
    # ada and twin held the entry that was seated, not the next one: when the connection that
    # queued again closes, the new entry leaves although they are still open.
    again = await same_player(app1.ws_url, ada)
    await queued(again)
    assert await waiting(app1) == [pid]
    await close(again, seen)
    assert await waiting(app1) == []
    await asyncio.gather(ada.close(), twin.close(), bob.close())


async def test_an_entry_queued_behind_a_put_back_group_expires_with_its_queue(fast_settings):
    """A group that could not be seated is put back at the head of its queue, which may then
    hold a whole group and more with nobody taken out (quick.lua 'u'). The next arrival takes
    that group out, not itself: its holder and token sets, just made, must still expire with
    the queue (they had no TTL, and outlived a queue nobody came back to for good)."""
    from server.storage.store import Store

    store = Store(fast_settings.redis, fast_settings)
    await store.start()
    try:
        assert await store.quick_push(GAME, 2, "pa", "ca", "ta") == {}
        group = await store.quick_push(GAME, 2, "pb", "cb", "tb")
        assert set(group) == {"pa", "pb"}
        assert await store.quick_push(GAME, 2, "pc", "cc", "tc") == {}
        assert await store.quick_put_back(GAME, 2, group) == {}  # seating failed: back ahead of pc
        assert set(await store.quick_push(GAME, 2, "pd", "cd", "td")) == {"pa", "pb"}
        r = store.redis
        assert [p.decode() for p in await r.lrange(keys.quick_key(GAME, 2), 0, -1)] == ["pc", "pd"]
        for pid in ("pc", "pd"):
            for key in (keys.quick_holders(GAME, 2, pid), keys.quick_tokens(GAME, 2, pid)):
                assert await r.exists(key) and await r.ttl(key) > 0, key
    finally:
        await store.close()
