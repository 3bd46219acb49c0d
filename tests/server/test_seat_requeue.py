"""A player queued again at the very moment their quick-match group is being seated keeps the
seat of the new entry (docs/protocol.md §3 `quick`).

The window: the process that takes the group out of the queue (quick.lua) gives back each
player's entry seat (`quick_hold`) only once the new race's seat replaces it, a few round trips
later. The same player's `quick` landing in between, on another connection, finds that seat
still held (so reserves nothing: it is the same entry's seat, queued again) and pushes a new
entry once the old one was taken. Without a claim per `quick`, the seating then gave back the
seat the new entry counts on: a waiting entry with no seat, one race over the player's limit
once it is seated. Each `quick` now claims the hold with a token of its own, the entry carries
its tokens, and the seating gives back only the claims of the entry it took (seats.lua `drop`).
The rated pool had the same window, wider: its seating also forgot the holders of the player's
entry (a new one, made meanwhile). Its entries now carry their tokens too, and the group's take
takes each entry's holders, tokens and login session with it, in the same step
(server/ratings/pool.py); the seating process forgets only the waiting records of the
connections that held the entries it took.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis_replies import text
from seat_probe import seat_set
from test_server_accounts import CHEAP_HASH, account, logged_in
from test_server_quick_queue import GAME, queued, same_player, seated, waiting
from waiting import until
from wsclient import player

from server.ratings import keys as rated_keys
from server.storage.players import quick_hold, rated_hold


async def held_by(redis_url: str, game: str, pid: str) -> set[str]:
    """The connection ids that hold `pid`'s rated pool entry (read straight from Redis)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        return {text(x) for x in await r.smembers(rated_keys.held(game, pid))}
    finally:
        await r.aclose()


class HeldSeating:
    """``async with HeldSeating(app, monkeypatch)``: `app`'s next new race is held right before
    its commit (after its group was taken out of the queue) until the block ends."""

    def __init__(self, app: Any, monkeypatch: Any) -> None:
        self.store, self.monkeypatch = app.service.store, monkeypatch
        self.reached, self.go = asyncio.Event(), asyncio.Event()

    async def __aenter__(self) -> HeldSeating:
        commit = self.store.commit

        async def held_commit(ver: int, *args: Any, **kwargs: Any) -> Any:
            if ver == 0 and not self.reached.is_set():  # a new race's first commit
                self.reached.set()
                await self.go.wait()
            return await commit(ver, *args, **kwargs)

        self.monkeypatch.setattr(self.store, "commit", held_commit)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.go.set()


async def test_a_requeue_while_the_group_is_seated_keeps_its_seat(make_server, clean_redis, monkeypatch):
    app1 = await make_server(max_races_per_player=2)
    app2 = await make_server(max_races_per_player=2)
    cy, bob = await player(app1.ws_url, "cy"), await player(app1.ws_url, "bob")
    twin = await same_player(app2.ws_url, cy)  # cy again, on the other process
    hold = quick_hold(GAME, 2)
    await queued(cy)
    async with HeldSeating(app1, monkeypatch) as held:
        await queued(bob)  # completes the group: app1 takes cy and bob out and seats them
        await until(held.reached.is_set, what="the group taken out, its race not committed yet")
        assert await waiting(app1) == []
        await queued(twin)  # cy queues again, while the group is being seated
        assert await waiting(app1) == [cy.player]
    race = (await cy.wait(seated))["race"]
    # The race's seat replaced the old entry's (given back before the race's `seated` notice);
    # the new entry, still waiting, keeps its own.
    assert await seat_set(clean_redis, cy.player) == {race, hold}
    assert await waiting(app1) == [cy.player]
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"
    # Once that entry leaves, its seat goes with it.
    assert (await twin.request("unqueue", game=GAME))["t"] == "ok"
    assert await seat_set(clean_redis, cy.player) == {race}
    await asyncio.gather(cy.close(), bob.close(), twin.close())


async def test_a_rated_requeue_while_the_group_is_seated_keeps_its_seat(
    make_server, clean_redis, monkeypatch
):
    app1 = await make_server(max_races_per_player=2, rated_form_ms=600_000, **CHEAP_HASH)
    app2 = await make_server(max_races_per_player=2, rated_form_ms=600_000, **CHEAP_HASH)
    ada, bob = await account(app1.ws_url, "ada"), await account(app1.ws_url, "bob")
    twin = await logged_in(app2.ws_url, ada, "ada")  # ada again, on the other process
    async with HeldSeating(app1, monkeypatch) as held:
        for c in (ada, bob):  # bob's arrival forms the group on app1
            assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
        await until(held.reached.is_set, what="the rated group taken out, its race not committed yet")
        assert (await twin.request("quick", game=GAME, rated=True))["t"] == "queued"
    race = (await ada.wait(lambda f: f.get("t") == "race" and f.get("rated") is True))["race"]
    # The race's seat replaced the old entry's; the new entry waits, held by the twin's
    # connection (the seating took the old entry's holders, not the new one's), with its seat.
    assert await seat_set(clean_redis, ada.player) == {race, rated_hold(GAME)}
    assert await app1.rated.pool.has(GAME, ada.player)
    assert len(await held_by(clean_redis, GAME, ada.player)) == 1
    assert (await ada.request("create", game=GAME))["code"] == "too-many-races"
    # The new entry leaves with its last holder, and its seat with it.
    await twin.close()

    async def seat_given_back() -> bool:
        return await seat_set(clean_redis, ada.player) == {race}

    await until(seat_given_back, what="the new entry's seat given back with its last holder")
    assert not await app1.rated.pool.has(GAME, ada.player)
    await asyncio.gather(ada.close(), bob.close())


async def test_a_rated_requeue_right_after_the_group_is_taken_keeps_its_session(
    make_server, clean_redis, monkeypatch
):
    """The new entry's login session is the entry's, written and taken out with it: the seating
    of the group taken before it neither takes nor forgets it, so the new entry is seated later."""
    app1 = await make_server(max_races_per_player=2, rated_form_ms=600_000, **CHEAP_HASH)
    app2 = await make_server(max_races_per_player=2, rated_form_ms=600_000, **CHEAP_HASH)
    ada, bob, twin, first = await requeued_before_seating(app1, app2, monkeypatch)
    assert await seat_set(clean_redis, ada.player) == {first, rated_hold(GAME)}
    assert await app1.rated.sessions.get(GAME, ada.player) != ""
    cyd = await account(app1.ws_url, "cyd")
    await rated_queued(cyd)  # forms a group with ada's new entry

    def second(f: dict[str, Any]) -> bool:  # the twin was shown the first race too
        return f.get("t") == "race" and f.get("rated") is True and f.get("race") != first

    races = [await c.wait(second) for c in (twin, cyd)]
    assert races[0]["race"] == races[1]["race"]
    assert await seat_set(clean_redis, ada.player) == {first, races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close(), twin.close(), cyd.close())


class HeldCall:
    """``async with HeldCall(obj, name, monkeypatch)``: the next call of `obj`'s method `name`
    is held right before it runs until the block ends."""

    def __init__(self, obj: Any, name: str, monkeypatch: Any) -> None:
        self.obj, self.name, self.monkeypatch = obj, name, monkeypatch
        self.reached, self.go = asyncio.Event(), asyncio.Event()

    async def __aenter__(self) -> HeldCall:
        method = getattr(self.obj, self.name)

        async def held(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():
                self.reached.set()
                await self.go.wait()
            return await method(*args, **kwargs)

        self.monkeypatch.setattr(self.obj, self.name, held)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.go.set()


async def rated_queued(c: Any) -> None:
    assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"


async def requeued_before_seating(seating: Any, other: Any, monkeypatch: Any) -> tuple[Any, Any, Any, str]:
    """ada and bob queue rated on `seating`, which takes their group out; before its seating
    begins, ada queues again from a twin connection on `other`. (ada, bob, the twin, the race
    of the group.)"""
    ada, bob = await account(seating.ws_url, "ada"), await account(seating.ws_url, "bob")
    twin = await logged_in(other.ws_url, ada, "ada")
    async with HeldCall(seating.rated.queue, "_seat", monkeypatch) as held:
        for c in (ada, bob):
            await rated_queued(c)
        await until(held.reached.is_set, what="the rated group taken out, its seating not begun")
        await rated_queued(twin)
    race = (await ada.wait(lambda f: f.get("t") == "race" and f.get("rated") is True))["race"]
    return ada, bob, twin, race


async def test_an_unqueue_racing_a_rated_requeue_leaves_the_new_entry_its_seat(
    make_server, clean_redis, monkeypatch
):
    """`unqueue` gives back only the claims of the entry it took out: a rated `quick` of the
    player's that claimed the seat meanwhile (its entry not in the pool yet) keeps it."""
    app1 = await make_server(max_races_per_player=1, **CHEAP_HASH)
    app2 = await make_server(max_races_per_player=1, **CHEAP_HASH)
    ada = await account(app1.ws_url, "ada")
    twin = await logged_in(app2.ws_url, ada, "ada")
    await rated_queued(ada)
    async with HeldCall(app2.rated.pool, "join", monkeypatch) as held:
        requeue = asyncio.create_task(rated_queued(twin))
        await until(held.reached.is_set, what="the twin's quick, its seat claimed, not joined yet")
        assert (await ada.request("unqueue", game=GAME))["t"] == "ok"
        assert await seat_set(clean_redis, ada.player) == {rated_hold(GAME)}
    await requeue
    assert await app1.rated.pool.has(GAME, ada.player)
    assert (await ada.request("create", game=GAME))["code"] == "too-many-races"
    assert (await twin.request("unqueue", game=GAME))["t"] == "ok"
    assert await seat_set(clean_redis, ada.player) == set()
    await asyncio.gather(ada.close(), twin.close())


async def test_a_revoked_entry_racing_a_rated_requeue_leaves_the_new_entry_its_seat(
    make_server, clean_redis, monkeypatch
):
    """A revoked login session's entry gives back only the claims it carried: a rated `quick`
    from another of the player's sessions that claimed the seat meanwhile keeps it."""
    app = await make_server(max_races_per_player=1, **CHEAP_HASH)
    ada = await account(app.ws_url, "ada")
    other = await logged_in(app.ws_url, ada, "ada")  # another login session of ada's
    await rated_queued(ada)
    async with HeldCall(app.rated.pool, "join", monkeypatch) as held:
        requeue = asyncio.create_task(rated_queued(other))
        await until(held.reached.is_set, what="the other session's quick, its seat claimed, not joined yet")
        assert (await ada.request("logout"))["t"] == "ok"  # ada's entry leaves: its session is revoked
        assert not await app.rated.pool.has(GAME, ada.player)
        assert await seat_set(clean_redis, ada.player) == {rated_hold(GAME)}
    await requeue
    assert await app.rated.pool.has(GAME, other.player)
    assert (await other.request("create", game=GAME))["code"] == "too-many-races"
    await asyncio.gather(ada.close(), other.close())


async def test_a_rated_requeue_on_the_seating_process_leaves_with_its_connection(
    make_server, clean_redis, monkeypatch
):
    """The seating forgets the waiting records of the connections that held the entries it took,
    not those of a connection of the player's that queued again meanwhile on the same process:
    that connection's close still takes the new entry (and its seat) out of the pool."""
    app = await make_server(max_races_per_player=2, rated_form_ms=600_000, **CHEAP_HASH)
    ada, bob, twin, race = await requeued_before_seating(app, app, monkeypatch)  # twin: same process
    assert await seat_set(clean_redis, ada.player) == {race, rated_hold(GAME)}
    await twin.close()

    async def left_with_its_connection() -> bool:
        return not await app.rated.pool.has(GAME, ada.player) and await seat_set(clean_redis, ada.player) == {
            race
        }

    await until(left_with_its_connection, what="the new entry and its seat gone with the twin's close")
    await asyncio.gather(ada.close(), bob.close())
