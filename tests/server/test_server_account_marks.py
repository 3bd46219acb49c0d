"""Accounts are marked on the wire, so that a guest named like one is told apart (docs/protocol.md
§3 player map, `race_list`, `end`, `replay`): real sockets, a real Redis."""

from __future__ import annotations

import asyncio

import pytest
from wsclient import Raw, player

GAME = "racing-aces"
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)


@pytest.fixture
async def app(make_server):
    return await make_server(**CHEAP_HASH)


async def account(url: str, name: str) -> Raw:
    """A connection logged in to a new account `name` (claimed by a guest, resumed by its token)."""
    guest = await player(url, name)
    acct = await guest.request("claim", name=name, password="correct horse")
    assert acct["t"] == "account", acct
    await guest.close()
    c = await Raw.open(url)
    await c.hello(token=acct["token"])
    return c


def marks(players: list[dict]) -> dict[str, bool]:
    """name -> whether the map says `account` (absent: false)."""
    return {p["name"]: p.get("account", False) for p in players}


async def test_an_account_is_marked_and_a_guest_is_not(app):
    url = app.ws_url
    ada = await account(url, "ada")
    guest = await player(url, "ada_")  # a guest: free to look alike, never marked
    snap = await ada.request("create", game=GAME, seats=2)
    rid = snap["race"]
    assert marks(snap["players"]) == {"ada": True}
    joined = await guest.request("join", race=rid)
    assert marks(joined["players"]) == {"ada": True, "ada_": False}
    assert all("account" not in p for p in joined["players"] if p["name"] == "ada_")  # optional: absent

    listed = await guest.request("races", game=GAME)
    entry = next(e for e in listed["races"] if e["race"] == rid)
    assert marks(entry["players"]) == {"ada": True, "ada_": False}

    for c in (ada, guest):
        assert (await c.request("ready", race=rid))["t"] == "race"
    for c in (ada, guest):
        await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    for c in (ada, guest):
        assert (await c.request("finish", race=rid))["t"] == "ok"
    end = await guest.wait(lambda f: f.get("t") == "end" and f["race"] == rid)
    assert {r["name"]: r["account"] for r in end["ranking"]} == {"ada": True, "ada_": False}

    replay = await guest.request("replay", race=rid)
    assert marks(replay["players"]) == {"ada": True, "ada_": False}
    assert {r["name"]: r["account"] for r in replay["ranking"]} == {"ada": True, "ada_": False}
    await asyncio.gather(ada.close(), guest.close())


async def test_a_claim_marks_the_seats_taken_after_it(app):
    """The mark is the seat's, recorded when taken: a guest's seat stays a guest's (no lookup on
    the race's path), the next one it takes as an account is marked."""
    url = app.ws_url
    c = await player(url, "zed")
    before = await c.request("create", game=GAME, seats=2)
    assert marks(before["players"]) == {"zed": False}
    assert (await c.request("claim", name="zed", password="correct horse"))["t"] == "account"
    after = await c.request("create", game=GAME, seats=2)
    assert marks(after["players"]) == {"zed": True}
    await c.close()
