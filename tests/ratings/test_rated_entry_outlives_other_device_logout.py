"""Logging out on one device does not take the player out of the rated pool that another,
still logged-in device queued for (docs/protocol.md §9: `logout` takes the player out "when
the token it queued with is revoked"; the entry is the player's, held by every connection that
queued for it). It used to: the entry recorded only the last queuing connection's session, and
`logout` there left the pool for every device."""

from __future__ import annotations

import asyncio

from wsclient import Raw, player

GAME = "racing-aces"
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PASSWORD = "correct horse"


async def account(url: str, name: str) -> Raw:
    """A guest that claims an account, then a connection logged in with its token."""
    guest = await player(url, name)
    acct = await guest.request("claim", name=name, password=PASSWORD)
    assert acct["t"] == "account", acct
    await guest.close()
    c = await Raw.open(url)
    await c.hello(token=acct["token"])
    return c


async def other_device(url: str, via: Raw, name: str) -> Raw:
    """A token of its own from `login` (asked on `via`), and a connection with it to `url`."""
    login = await via.request("login", name=name, password=PASSWORD)
    assert login["t"] == "account", login
    c = await Raw.open(url)
    await c.hello(token=login["token"])
    return c


async def queued(c: Raw, seats: int) -> None:
    reply = await c.request("quick", game=GAME, seats=seats, rated=True)
    assert reply["t"] == "queued", reply


def rated_race(f: dict) -> bool:
    return f.get("t") == "race" and f.get("rated") is True


async def test_logout_on_one_device_keeps_the_entry_another_device_queued(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    dev1 = await account(app1.ws_url, "ada")
    dev2 = await other_device(app2.ws_url, dev1, "ada")  # another token, on the other process
    await queued(dev2, 3)
    await queued(dev1, 3)  # the last to queue: the entry's session is dev1's
    assert (await dev1.request("logout"))["t"] == "ok"
    pool = app1.rated.pool
    assert await pool.has(GAME, dev1.player)  # dev2 queued with a token that still holds
    assert (await dev2.request("ping"))["t"] == "pong"
    bob, cy = await account(app1.ws_url, "bob"), await account(app2.ws_url, "cyd")
    await queued(bob, 3)
    await queued(cy, 3)
    snaps = [await c.wait(rated_race) for c in (dev2, bob, cy)]
    assert len({s["race"] for s in snaps}) == 1
    assert sorted(p["player"] for p in snaps[0]["players"]) == sorted(c.player for c in (dev2, bob, cy))
    await asyncio.gather(*(c.close() for c in (dev1, dev2, bob, cy)))


async def test_logout_on_the_only_device_that_queued_leaves_the_pool(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    dev1 = await account(app1.ws_url, "ada")
    dev2 = await other_device(app2.ws_url, dev1, "ada")  # logged in, never queued
    await queued(dev1, 3)
    assert (await dev1.request("logout"))["t"] == "ok"
    assert not await app1.rated.pool.has(GAME, dev1.player)
    assert (await dev2.request("ping"))["t"] == "pong"
    await asyncio.gather(*(c.close() for c in (dev1, dev2)))
