"""The client library's `recent`, rated `create`/`quick`, `logout_all` and `change_password`
against a real server and a real Redis (fixtures from tests/conftest.py; docs/protocol.md §9)."""

from __future__ import annotations

import asyncio

import pytest
from waiting import DEADLINE, until

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(90)

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse battery"
NEW = "staple battery horse"
GAME = "fours-up"


async def account(url: str, name: str) -> str:
    async with client.connect(url, name=name) as c:
        return (await c.claim(name, PW)).token


async def test_recent_of_a_guest(make_server) -> None:
    app = await make_server()
    async with client.connect(app.ws_url, name="ada") as c:
        empty = await c.recent()
        assert isinstance(empty, m.RecentRaces) and empty.races == []
        snap = await c.create(GAME, seats=1)
        await c.ready(snap.race)
        await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        await c.move(snap.race, "draw")
        await c.finish(snap.race)
        await c.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)

        async def listed() -> list[m.RecentRace]:
            return (await c.recent(limit=5)).races

        races = await until(listed, what="the race in the guest's recent races")
        (e,) = races
        assert e.race == snap.race and e.game == GAME and e.kind == "public" and not e.rated
        assert e.rank == 1 and e.players == 1 and e.status == "finished" and e.moves == 1
        assert e.before is None and e.after is None
        with pytest.raises(client.ServerError) as err:
            await c.recent(limit=51)  # the library's own check or the server's, a bad-message
        assert err.value.code == "bad-message"


async def test_rated_quick_and_create(make_server) -> None:
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    ada_token, bob_token = await asyncio.gather(account(url, "ada"), account(url, "bob"))
    async with client.connect(url, name="guest") as guest:
        for ask in (guest.quick(GAME, rated=True), guest.create(GAME, seats=2, rated=True)):
            with pytest.raises(client.ServerError) as e:
                await ask
            assert e.value.code == "not-logged-in"
    async with client.connect(url, token=ada_token) as ada, client.connect(url, token=bob_token) as bob:
        lobby = await ada.create(GAME, seats=2, rated=True)
        assert lobby.rated and lobby.status == "lobby"
        await ada.leave(lobby.race)

        queued = await ada.quick(GAME, rated=True)
        assert queued.rated
        assert (await bob.quick(GAME, rated=True)).rated
        # The new race's first snapshot, sent when the `seated` notice is handled: on a loaded
        # machine that came after its 100 ms countdown, and the snapshot said `running`.
        snap = await ada.wait_for("race", lambda ev: ev.race != lobby.race, timeout=DEADLINE)
        assert snap.rated and snap.status in ("countdown", "running")
        await asyncio.gather(*(c.wait_for("start", timeout=DEADLINE) for c in (ada, bob)))
        await ada.move(snap.race, "draw")
        await asyncio.gather(ada.finish(snap.race), bob.finish(snap.race))
        change = await ada.wait_for(m.RatingChange, timeout=DEADLINE)
        assert change.race == snap.race and {p.name for p in change.players} == {"ada", "bob"}

        async def rated() -> m.RecentRace | None:
            races = (await ada.recent()).races
            return races[0] if races and races[0].after is not None else None

        e = await until(rated, what="ada's recent rated race with its rating change")
        assert e.race == snap.race and e.kind == "quick" and e.rated and e.players == 2
        assert e.before is not None and e.after is not None and e.after.races == 1


async def test_change_password_and_logout_all(make_server) -> None:
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    token = await account(url, "cyd")
    async with client.connect(url, name="x") as c:
        other = (await c.login("cyd", PW)).token
    async with client.connect(url, token=token) as c:
        with pytest.raises(client.ServerError) as e:
            await c.change_password("wrong password", NEW)
        assert e.value.code == "bad-login"
        assert isinstance(await c.change_password(PW, NEW), m.Ok)
        assert c.token == token  # this connection's token holds: nothing new to keep
    async with client.connect(url, token=token) as c:
        assert c.name == "cyd"
    with pytest.raises(client.ServerError) as e:
        async with client.connect(url, token=other):
            pass
    assert e.value.code == "bad-token"

    async with client.connect(url, name="y") as c:
        second = (await c.login("cyd", NEW)).token
    async with client.connect(url, token=token) as c:
        assert isinstance(await c.logout_all(), m.Ok)
        with pytest.raises(client.ServerError) as e:
            await c.logout_all()  # no longer logged in
        assert e.value.code == "not-logged-in"
    for t in (token, second):
        with pytest.raises(client.ServerError) as e:
            async with client.connect(url, token=t):
                pass
        assert e.value.code == "bad-token"
