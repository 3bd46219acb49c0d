"""Login limits against a logged-in owner, over real sockets and a real Redis (docs/protocol.md §9)."""

from __future__ import annotations

import asyncio

from wsclient import Raw, player

from server.ratings import keys as rkeys

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)


async def test_strangers_failing_logins_do_not_stop_the_owners_password_change(make_server):
    """Anyone can empty a name's login bucket with wrong logins (here with the name upper-cased);
    the owner's `login` then waits, as designed, but the owner's `password` change from a
    logged-in connection is not refused for it: it has a bucket per session of its own."""
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    guest = await player(url, "ada")
    acct = await guest.request("claim", name="ada", password="correct horse")
    assert acct["t"] == "account", acct
    # Every client here is 127.0.0.1: as if ada had claimed elsewhere, her address is not known.
    await app.store.redis.delete(rkeys.known_addresses(acct["player"]))
    thief = await player(url, "thief")
    codes = [
        (await thief.request("login", name="ADA", password=f"guess number {i}"))["code"] for i in range(5)
    ]
    assert codes == ["bad-login"] * 5
    limited = await guest.request("login", name="ada", password="correct horse")
    assert limited["code"] == "login-limited" and limited["retry_ms"] > 0

    ada = await Raw.open(url)
    assert (await ada.hello(token=acct["token"]))["player"] == acct["player"]
    changed = await ada.request("password", old="correct horse", new="battery staple")
    assert changed["t"] == "ok", changed
    await asyncio.gather(guest.close(), thief.close(), ada.close())
