"""The rated pool's entry is the player's, not a connection's (docs/protocol.md §9 "Rated quick-match").

A player may wait from several connections with the same token, on several
processes: the entry stays while one of the connections that queued for it is
open, and `unqueue` from any of the player's connections takes it out.
"""

from __future__ import annotations

import asyncio
from typing import Any

from test_server_accounts import CHEAP_HASH, GAME, account
from waiting import until
from wsclient import Raw


async def same_player(url: str, c: Raw) -> Raw:
    """Another connection with `c`'s token (the same player and login session), to `url`."""
    other = await Raw.open(url)
    await other.hello(token=c.token)
    return other


async def queued(c: Raw) -> None:
    assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"


def closes_seen(*apps: Any) -> set[int]:
    """The client ports of the connections whose clean-up (after the rated pool's) has run on `apps`."""
    seen: set[int] = set()

    async def hook(s: Any) -> None:
        seen.add(s.transport.ws.remote_address[1])

    for app in apps:
        app.service.disconnect_hooks.append(hook)
    return seen


async def close(c: Raw, seen: set[int]) -> None:
    """Close `c` and wait until its server cleaned up after it."""
    port = c.ws.local_address[1]
    await c.close()
    await until(lambda: port in seen, what="the closed connection's clean-up")


async def test_the_entry_stays_while_another_connection_that_queued_is_open(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    pool = app1.rated.pool
    seen = closes_seen(app1, app2)
    ada = await account(app1.ws_url, "ada")
    twin = await same_player(app2.ws_url, ada)  # the same token, on the other process
    for c in (ada, twin):
        await queued(c)
    await close(ada, seen)
    assert await pool.has(GAME, twin.player)  # twin still waits
    bob = await account(app1.ws_url, "bob")
    await queued(bob)
    snaps = [await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (twin, bob)]
    assert snaps[0]["race"] == snaps[1]["race"]
    await asyncio.gather(twin.close(), bob.close())


async def test_the_entry_leaves_with_the_last_connection_that_queued(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    pool = app1.rated.pool
    seen = closes_seen(app1, app2)
    ada = await account(app1.ws_url, "ada")
    pid = ada.player
    twin, here = await same_player(app2.ws_url, ada), await same_player(app1.ws_url, ada)
    idle = await same_player(app2.ws_url, ada)  # never queues: it does not keep the entry
    for c in (ada, twin, here):
        await queued(c)
    await close(twin, seen)
    await close(ada, seen)
    assert await pool.has(GAME, pid)
    await close(here, seen)
    assert not await pool.has(GAME, pid)
    assert await app1.rated.sessions.get(GAME, pid) == ""  # its login session's record went too
    # Queued again, from the idle connection this time: its entry, whoever closes.
    await queued(idle)
    assert await pool.has(GAME, pid)
    await close(await same_player(app1.ws_url, ada), seen)
    assert await pool.has(GAME, pid)
    await close(idle, seen)
    assert not await pool.has(GAME, pid)


async def test_unqueue_from_any_connection_of_the_player_leaves_the_pool(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    pool = app1.rated.pool
    seen = closes_seen(app1, app2)
    ada = await account(app1.ws_url, "ada")
    pid = ada.player
    here, there = await same_player(app1.ws_url, ada), await same_player(app2.ws_url, ada)
    for asker in (here, there):  # neither queued: the entry is ada's, the player's
        await queued(ada)
        assert await pool.has(GAME, pid)
        assert (await asker.request("unqueue", game=GAME))["t"] == "ok"
        assert not await pool.has(GAME, pid)
    # Gone for good: nobody is seated with it, and no connection's close brings anything back.
    bob = await account(app2.ws_url, "bob")
    await queued(bob)
    assert await pool.has(GAME, bob.player)
    assert not [f for f in ada.unread if f.get("t") == "race"]
    await close(ada, seen)
    assert not await pool.has(GAME, pid) and await pool.has(GAME, bob.player)
    await asyncio.gather(here.close(), there.close(), bob.close())


async def test_a_stale_entry_dropped_by_the_pool_leaves_no_session_record(make_server):
    """The pool drops an entry older than its stale_ms (a player whose process died without
    leaving); the record of the entry's login session went with it only on `unqueue` (a soak
    audit: one field per player and game, renewed with every queue, so never expiring)."""
    app = await make_server(**CHEAP_HASH)
    ada, bob = await account(app.ws_url, "ada"), await account(app.ws_url, "bob")
    await queued(ada)
    assert await app.rated.sessions.get(GAME, ada.player) != ""
    app.rated.pool.stale_ms = 0  # every entry is stale from now on: the next forming drops them
    await queued(bob)

    async def dropped() -> bool:
        return not await app.rated.pool.has(GAME, ada.player) and not await app.rated.pool.has(
            GAME, bob.player
        )

    await until(dropped, what="the stale entries dropped")
    for c in (ada, bob):

        async def gone(c: Raw = c) -> bool:
            return await _no_session(app, c.player)

        await until(gone, what="the session record gone")
    await asyncio.gather(ada.close(), bob.close())


async def _no_session(app: Any, pid: str) -> bool:
    return await app.rated.sessions.get(GAME, pid) == ""
