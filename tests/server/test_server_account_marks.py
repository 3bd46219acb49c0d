"""Accounts are marked on the wire, so that a guest named like one is told apart (docs/protocol.md
§3 player map, `race_list`, `end`, `replay`): real sockets, a real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_server_accounts import CHEAP_HASH, account
from wsclient import Raw, player

GAME = "racing-aces"


@pytest.fixture
async def app(make_server):
    return await make_server(**CHEAP_HASH)


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


async def refused(url: str, **hello: Any) -> dict:
    c = await Raw.open(url)
    try:
        return await c.request("hello", v=1, **hello)
    finally:
        await c.close()


async def test_a_guest_cannot_take_an_accounts_name_or_a_reserved_one(app):
    url = app.ws_url
    ada = await account(url, "ada")
    for name in ("ada", "ADA", "ada 2", "admin", "Search bot"):
        err = await refused(url, name=name)
        assert (err["t"], err.get("code"), err.get("field")) == ("error", "name-taken", "name"), (name, err)
    # A guest's rename is refused alike, and renames nobody.
    guest = await player(url, "eve")
    err = await refused(url, token=guest.token, name="Ada")
    assert err.get("code") == "name-taken", err
    again = await Raw.open(url)
    assert (await again.hello(token=guest.token))["name"] == "eve"
    # The account's own token keeps its name (a `name` beside it is ignored, as ever).
    mine = await Raw.open(url)
    assert (await mine.hello(name="ADA", token=ada.token))["name"] == "ada"
    await asyncio.gather(ada.close(), guest.close(), again.close(), mine.close())


def index_reads(app) -> list[list[str]]:
    """The name keys each later hello looks up in the accounts' index (one list per read)."""
    handlers = app.service.session
    held = handlers.account_names_held
    asked: list[list[str]] = []

    async def counting(keys: list[str]) -> bool:
        asked.append(keys)
        return await held(keys)

    handlers.account_names_held = counting
    return asked


async def test_only_a_hello_that_takes_an_account_shaped_name_reads_the_index(app):
    url = app.ws_url
    asked = index_reads(app)
    c = await Raw.open(url)
    w = await c.hello()  # no name: nothing to check
    assert w["name"].startswith("player-") and asked == []
    await c.close()
    spaced = await player(url, "Grand master")  # no account can be called so
    assert asked == []
    again = await Raw.open(url)
    await again.hello(name="Grand master", token=spaced.token)  # kept, not taken
    assert asked == []
    await again.close()
    ada = await player(url, "ada")
    assert asked == [["ada"]]
    await asyncio.gather(spaced.close(), ada.close())


async def test_claims_from_one_address_are_limited(make_server):
    """Beyond CLAIM_POLICY's bucket (5 at once), `claim-limited` with `retry_ms`; loopback is
    exempt by default (`--limit-exempt`), so this server exempts nobody."""
    app = await make_server(limit_exempt="", **CHEAP_HASH)
    url = app.ws_url
    guests = [await player(url, f"claimer{i}") for i in range(6)]
    replies = [
        await g.request("claim", name=f"claimer{i}", password="correct horse") for i, g in enumerate(guests)
    ]
    assert [r["t"] for r in replies] == ["account"] * 5 + ["error"]
    assert replies[5]["code"] == "claim-limited" and replies[5]["retry_ms"] > 0
    assert (await guests[5].request("logout"))["code"] == "not-logged-in"  # still a guest
    await asyncio.gather(*(g.close() for g in guests))


async def test_a_look_alike_in_another_alphabet_is_refused_and_an_ordinary_name_is_not(app):
    """Cyrillic "а" (U+0430) is drawn as "a": "аdа" would pass for the account ada. A Cyrillic
    name drawn like no account's is taken, and reads nothing from the accounts' index."""
    url = app.ws_url
    ada = await account(url, "ada")
    for name in ("\u0430d\u0430", "\u0410D\u0410", "\u0405earch bot", "\u0430dmin"):
        err = await refused(url, name=name)
        assert (err["t"], err.get("code"), err.get("field")) == ("error", "name-taken", "name"), (name, err)
    asked = index_reads(app)
    anna = await player(url, "\u0410\u043d\u043d\u0430")  # Анна
    assert asked == []
    await asyncio.gather(ada.close(), anna.close())
