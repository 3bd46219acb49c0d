"""A create or join that fails after its commit seated the player keeps the seat
(handlers/lobby.py `taking_seat`): the race holds the player, so `pl:{PID}:races` must
too, else a reconnect's `welcome` would not list the race and the seat would stop counting
against MAX_RACES_PER_PLAYER. Its error says the seat is taken (not "no effect"). A failure
before the commit still gives the seat back, and a create or join commit whose reply was
lost, reaching Redis after that, makes no race or seats nobody."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from injected import fail_first, held_first
from redis_replies import text
from test_server_accounts import CHEAP_HASH, account
from waiting import until
from wsclient import Raw, player

from server.core import races as R
from server.storage import Conflict
from server.storage.keys import seats_key, void_key
from server.storage.players import reservations_key

GAME = "fours-up"


async def seats_of(url: str, token: str) -> list[str]:
    """The player's seats as a new connection's `welcome` lists them."""
    c = await Raw.open(url)
    w = await c.hello(token=token)
    await c.close()
    return list(w["races"])


async def seat_keys(redis_url: str, pid: str) -> tuple[set[str], set[str]]:
    """(the seats set, the reserved ids) of `pid`."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        seats = {text(x) for x in await r.smembers(seats_key(pid))}
        reserved = {text(x) for x in await r.zrange(reservations_key(pid), 0, -1)}
        return seats, reserved
    finally:
        await r.aclose()


def failing_once(app: Any, name: str, pid: str, exc: BaseException) -> None:
    """The store's `name(pid, ...)` raises `exc` the first time it is called for `pid`."""
    store = app.service.store
    real = getattr(store, name)
    calls = {"n": 0}

    async def flaky(who: str, *args: Any, **kw: Any) -> Any:
        if who == pid and calls["n"] == 0:
            calls["n"] += 1
            raise exc
        return await real(who, *args, **kw)

    setattr(store, name, flaky)


async def test_a_join_failing_after_its_commit_keeps_the_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=2)
    host = await player(app.ws_url, "host")
    rid = (await host.request("create", game=GAME, seats=3))["race"]
    bea = await player(app.ws_url, "bea")
    assert (await bea.request("create", game=GAME))["t"] == "race"
    failing_once(app, "add_seat", bea.player, ConnectionError("redis blip after the join's commit"))
    reply = await bea.request("join", race=rid)
    assert reply["t"] == "error" and reply["code"] == "internal", reply
    assert "no effect" not in reply["message"] and rid in reply["message"], reply
    _now, race = await app.service.store.load_race(rid)
    assert race is not None and race.seat_of(bea.player) is not None
    # The seat is kept and settled: listed by a reconnect, counted against the limit.
    seats, reserved = await seat_keys(clean_redis, bea.player)
    assert rid in seats and rid not in reserved
    assert rid in await seats_of(app.ws_url, bea.token)
    assert (await bea.request("create", game=GAME))["code"] == "too-many-races"
    await asyncio.gather(host.close(), bea.close())


async def test_a_create_failing_after_its_commit_keeps_the_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    store = app.service.store
    real = store.index
    failed: list[str] = []

    async def flaky(rid: str, created: int | None) -> None:
        if not failed:
            failed.append(rid)
            raise ConnectionError("redis blip while listing the new race")
        await real(rid, created)

    store.index = flaky
    reply = await ada.request("create", game=GAME)
    assert reply["t"] == "error" and reply["code"] == "internal", reply
    (rid,) = failed
    assert "no effect" not in reply["message"] and rid in reply["message"], reply
    assert await seats_of(app.ws_url, ada.token) == [rid]
    assert (await ada.request("create", game=GAME, private=True))["code"] == "too-many-races"
    await ada.close()


async def test_a_join_cancelled_after_its_commit_keeps_the_seat(make_server, clean_redis):
    """A shutdown cancelling the request after its commit: the seat stays."""
    app = await make_server(max_races_per_player=3)
    host = await player(app.ws_url, "host")
    rid = (await host.request("create", game=GAME, seats=3))["race"]
    bea = await player(app.ws_url, "bea")
    lobby = app.service.lobby
    with pytest.raises(asyncio.CancelledError):
        async with lobby.taking_seat(bea.player, rid):
            await lobby.mutate(rid, lambda r, now: R.join(r, bea.player, "bea"))
            raise asyncio.CancelledError
    seats, reserved = await seat_keys(clean_redis, bea.player)
    assert seats == {rid} and not reserved
    assert await seats_of(app.ws_url, bea.token) == [rid]
    await asyncio.gather(host.close(), bea.close())


async def test_a_join_failing_before_its_commit_gives_the_seat_back(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    host = await player(app.ws_url, "host")
    rid = (await host.request("create", game=GAME, seats=3))["race"]
    bea = await player(app.ws_url, "bea")
    store = app.service.store
    real = store.commit
    calls = {"n": 0}

    async def flaky(*args: Any, **kw: Any) -> Any:
        if calls["n"] == 0:
            calls["n"] += 1
            raise ConnectionError("redis blip before the join's commit")
        return await real(*args, **kw)

    store.commit = flaky
    reply = await bea.request("join", race=rid)
    assert reply["code"] == "internal", reply
    _now, race = await store.load_race(rid)
    assert race is not None and race.seat_of(bea.player) is None
    assert await seat_keys(clean_redis, bea.player) == (set(), set())
    assert (await bea.request("join", race=rid))["t"] == "race"  # the limit of 1 lets it in
    await asyncio.gather(host.close(), bea.close())


async def test_a_create_whose_commit_arrives_after_its_failure_makes_no_race(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    store = app.service.store
    held = held_first(store, "commit", who=0)
    reply = await ada.request("create", game=GAME)
    assert reply["t"] == "error" and reply["code"] == "internal", reply
    assert held.call is not None
    rid = held.call[0][1].race
    with pytest.raises(Conflict, match="given up"):
        await held.late()
    _now, race = await store.load_race(rid)
    assert race is None
    assert await seats_of(app.ws_url, ada.token) == []
    again = await ada.request("create", game=GAME)  # the limit of 1 lets it in
    assert again["t"] == "race" and again["race"] != rid, again
    await ada.close()


async def test_a_create_failing_while_redis_cannot_be_read_is_given_up_once_it_answers(
    make_server, clean_redis
):
    """Redis cannot be read right after the failure (outcome unknown): the read that gives the
    race up is made again in the background until Redis answers; the creation arriving after
    that makes no race."""
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    store = app.service.store
    held = held_first(store, "commit", who=0)
    reads = fail_first(store, "load_race", times=3)  # the request's, then two in the background
    reply = await ada.request("create", game=GAME)
    assert reply["t"] == "error" and reply["code"] == "internal", reply
    assert held.call is not None
    rid = held.call[0][1].race
    await until(lambda: store.redis.exists(void_key(rid)), what="the race given up")
    assert reads["n"] == 4
    with pytest.raises(Conflict, match="given up"):
        await held.late()
    _now, race = await store.load_race(rid)
    assert race is None
    await ada.close()


async def test_a_join_whose_commit_arrives_after_its_failure_seats_nobody(make_server, clean_redis):
    await late_join_seats_nobody(make_server)


async def test_a_rated_join_whose_commit_arrives_after_its_failure_seats_nobody(make_server, clean_redis):
    """A rated race's join (handlers/rated.py) carries its attempt's token the same way."""
    await late_join_seats_nobody(make_server, rated=True)


async def test_a_join_whose_commit_arrives_late_seats_nobody_in_a_cluster(cluster_url, make_server):
    """The voided joins share the race's slot: the load that adds to them and the commit that
    reads them run on one node of a real Redis Cluster."""
    await late_join_seats_nobody(make_server, redis=cluster_url)


async def late_join_seats_nobody(make_server: Any, *, rated: bool = False, **server: Any) -> None:
    """A join whose commit was sent on a connection that failed, told "no effect" and its seat
    given back: that commit, reaching Redis after the failure was looked into, writes nothing
    (commit.lua refuses the attempt given up by load.lua). A new join is a new attempt."""
    app = await make_server(max_races_per_player=1, **(CHEAP_HASH if rated else {}), **server)
    join = account if rated else player
    host = await join(app.ws_url, "host")
    created = await host.request("create", game=GAME, seats=3, rated=rated)
    assert created.get("rated", False) is rated, created
    rid = created["race"]
    bea = await join(app.ws_url, "bea")
    store = app.service.store
    held = held_first(store, "commit")
    reply = await bea.request("join", race=rid)
    assert reply["t"] == "error" and reply["code"] == "internal", reply
    assert held.call is not None and held.call[0][1].seat_of(bea.player) is not None
    with pytest.raises(Conflict, match="given up"):
        await held.late()
    _now, race = await store.load_race(rid)
    assert race is not None and race.seat_of(bea.player) is None and race.ver == held.call[0][0]
    assert await seats_of(app.ws_url, bea.token) == []
    again = await bea.request("join", race=rid)  # the limit of 1 lets it in
    assert again["t"] == "race", again
    assert await seats_of(app.ws_url, bea.token) == [rid]
    await asyncio.gather(host.close(), bea.close())


@pytest.mark.daily  # starts an attempt on the real clock (tests/conftest.py)
async def test_a_daily_start_failing_after_its_commit_leaves_no_orphan_seat(make_server, clean_redis):
    """A daily attempt's race the daily never learned (its create failed after the commit) is
    abandoned at once: it would hold the player's seat until its lobby expires."""
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    failing_once(app, "add_seat", ada.player, ConnectionError("redis blip after the attempt's commit"))
    reply = await ada.request("daily_start", game=GAME)
    assert reply["code"] == "internal", reply
    assert await seat_keys(clean_redis, ada.player) == (set(), set())
    assert await seats_of(app.ws_url, ada.token) == []
    again = await ada.request("daily_start", game=GAME)
    assert again["t"] == "race", again
    assert await seats_of(app.ws_url, ada.token) == [again["race"]]
    await ada.close()
