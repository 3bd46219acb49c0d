"""A matched group whose race could not be made is not lost (server/handlers/seating.py).

A casual quick-match group or a rated pool group is out of its queue once formed. If
seating it fails before its race is stored, the casual group is tried again and then put
back at the head of its queue, each entry with its holders and claims; the rated group goes
back to the pool, which forms it again. If it fails after the race was stored, the players
sit in that race all the same. A creation whose reply was lost, reaching Redis only after
the group went back, stores nothing (the race was given up); if Redis could not be read at
all, the race is given up once it answers (its group seated if the creation got there first).
The failures are injected into the real server's lobby and store (Redis blips); everything
else is real: Redis, sockets, the queue scripts.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from injected import Blip, Held, fail_first, held_first, stop_first
from seat_probe import seat_set
from test_server_accounts import CHEAP_HASH, account
from test_server_quick_queue import GAME, queued, waiting
from test_server_rated_pool import close, closes_seen
from waiting import until
from wsclient import player

from server import retries
from server.handlers import quick_match
from server.storage import Conflict
from server.storage.keys import void_key
from server.storage.players import quick_hold


@pytest.fixture(autouse=True)
def arrivals_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A group put back is formed again by an arrival only, not by the server's look at its
    queue a while later (`form_again`): what waits after a put-back holds however slow the
    machine. (The look's own test sets its delay again.)"""
    monkeypatch.setattr(quick_match, "FORM_AGAIN_S", 3600.0)


def failing_deals(app: Any, times: int) -> dict[str, int]:
    """The lobby's `new_deal` fails its first `times` calls (before any race is stored)."""
    return fail_first(app.service.lobby, "new_deal", times, why="redis blip while dealing")


def failing_deals_after_a_while(app: Any, times: int) -> tuple[asyncio.Event, asyncio.Event]:
    """The lobby's `new_deal` fails its first `times` calls, the first of them only once the
    test says so: (reached, go on) (`stop_first`)."""
    failing_deals(app, times - 1)
    return stop_first(app.service.lobby, "new_deal")


def failing_seat_once(app: Any, pid: str) -> None:
    """The store's `add_seat` fails once for `pid`: after the race's commit."""
    fail_first(app.service.store, "add_seat", who=pid, why="redis blip after the commit")


def held_creation(app: Any) -> Held:
    """The first race creation's commit (`store.commit` from version 0) is sent, its reply
    lost: it fails, and may still reach Redis after the failure was looked into (`Held.late`)."""
    return held_first(app.service.store, "commit", who=0)


async def late_creation_stores_nothing(app: Any, held: Held, players: list[str], race: str) -> None:
    """The held creation, reaching Redis after its group was seated in `race`, stores nothing:
    the players sit in `race` only (server/handlers/seating.py gave the first race up)."""
    assert held.call is not None
    first = held.call[0][1].race
    assert first != race
    with pytest.raises(Conflict, match="given up"):
        await held.late()
    _now, stored = await app.service.store.load_race(first)
    assert stored is None
    for pid in players:
        assert await app.service.store.player_races(pid) == [race]


def in_race(frame: dict[str, Any]) -> bool:
    return frame.get("t") == "race" and frame.get("status") in ("countdown", "running")


async def test_a_casual_group_failing_before_its_race_is_tried_again(make_server, clean_redis):
    app = await make_server()
    calls = failing_deals(app, 1)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    races = [await c.wait(in_race) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"] and calls["n"] == 2
    assert await waiting(app) == []
    for c in (ada, bob):  # the race's seat only: the entry's is given back
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close())


async def test_a_casual_group_that_cannot_be_seated_goes_back_to_its_queue(make_server, clean_redis):
    app = await make_server()
    calls = failing_deals(app, quick_match.SEAT_ATTEMPTS)
    ada, bob, cy = [await player(app.ws_url, n) for n in ("ada", "bob", "cy")]
    for c in (ada, bob):
        await queued(c)
    await until(lambda: calls["n"] == quick_match.SEAT_ATTEMPTS, what="every try at seating the group")
    await until(lambda: waiting(app), what="the group back in its queue")
    assert await waiting(app) == [ada.player, bob.player]  # in their order, at the head
    hold = quick_hold(GAME, 2)
    for c in (ada, bob):  # each entry still holds its seat
        assert hold in await seat_set(clean_redis, c.player)
    # The next arrival forms a group again: the two who waited longest.
    await queued(cy)
    races = [await c.wait(in_race) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"]
    assert {p["player"] for p in races[0]["players"]} == {ada.player, bob.player}
    assert await waiting(app) == [cy.player]
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close(), cy.close())


async def test_a_group_put_back_is_seated_a_while_later_though_nobody_arrives(
    make_server, clean_redis, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(quick_match, "FORM_AGAIN_S", 0.05)
    app = await make_server()
    calls = failing_deals(app, quick_match.SEAT_ATTEMPTS)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    races = [await c.wait(in_race) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"]
    assert calls["n"] == quick_match.SEAT_ATTEMPTS + 1
    assert await waiting(app) == []
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close())


async def test_a_put_back_entry_leaves_with_its_last_connection(make_server, clean_redis):
    app = await make_server()
    failing_deals(app, quick_match.SEAT_ATTEMPTS)
    seen = closes_seen(app)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    await until(lambda: waiting(app), what="the group back in its queue")
    assert await waiting(app) == [ada.player, bob.player]
    for c in (ada, bob):  # bob's connection completed the group: it holds the entry again too
        await close(c, seen)
    assert await waiting(app) == []
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == set()


async def test_a_casual_group_failing_after_its_race_was_stored_is_seated(make_server, clean_redis):
    app = await make_server()
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    failing_seat_once(app, bob.player)
    for c in (ada, bob):
        await queued(c)
    races = [await c.wait(in_race) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"]
    assert await waiting(app) == []
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close())


async def test_rated_groups_failing_before_their_race_go_back_to_the_pool(make_server, clean_redis):
    app = await make_server(**CHEAP_HASH)
    calls = failing_deals(app, 1)
    people = [await account(app.ws_url, n) for n in ("ada", "bob", "cyd", "dee")]
    for c in people:
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    races = [await c.wait(lambda f: in_race(f) and f.get("rated") is True) for c in people]
    assert calls["n"] >= 3  # the failed try, and the two races
    assert len({r["race"] for r in races}) == 2
    assert not any([await app.rated.pool.has(GAME, c.player) for c in people])
    for c, race in zip(people, races, strict=True):
        assert await seat_set(clean_redis, c.player) == {race["race"]}
    await asyncio.gather(*(c.close() for c in people))


async def test_a_rated_group_failing_after_its_race_was_stored_is_seated(make_server, clean_redis):
    app = await make_server(**CHEAP_HASH)
    ada, bob = await account(app.ws_url, "ada"), await account(app.ws_url, "bob")
    failing_seat_once(app, ada.player)
    for c in (ada, bob):
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    races = [await c.wait(lambda f: in_race(f) and f.get("rated") is True) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"]
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
        assert not await app.rated.pool.has(GAME, c.player)
    await asyncio.gather(ada.close(), bob.close())


async def test_a_casual_groups_lost_creation_arriving_late_stores_nothing(make_server, clean_redis):
    await casual_lost_creation_arriving_late(make_server)


async def test_a_lost_creation_arriving_late_stores_nothing_in_a_cluster(cluster_url, make_server):
    """The race's void mark shares its slot: the load that sets it and the commit that reads
    it run on one node of a real Redis Cluster."""
    await casual_lost_creation_arriving_late(make_server, redis=cluster_url)


async def casual_lost_creation_arriving_late(make_server: Any, **server: Any) -> None:
    app = await make_server(**server)
    held = held_creation(app)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    races = [await c.wait(in_race) for c in (ada, bob)]  # the second try's race
    assert races[0]["race"] == races[1]["race"]
    await late_creation_stores_nothing(app, held, [ada.player, bob.player], races[0]["race"])
    await asyncio.gather(ada.close(), bob.close())


async def test_a_rated_groups_lost_creation_arriving_late_stores_nothing(make_server, clean_redis):
    app = await make_server(**CHEAP_HASH)
    held = held_creation(app)
    ada, bob = await account(app.ws_url, "ada"), await account(app.ws_url, "bob")
    for c in (ada, bob):
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    # Back in the pool, formed again: another race.
    races = [await c.wait(lambda f: in_race(f) and f.get("rated") is True) for c in (ada, bob)]
    assert races[0]["race"] == races[1]["race"]
    await late_creation_stores_nothing(app, held, [ada.player, bob.player], races[0]["race"])
    await asyncio.gather(ada.close(), bob.close())


# --- Redis could not tell (outcome unknown) --------------------------------------------------
# The entries' seats are given back at once; the look is taken again in the background until
# Redis answers: the race is then given up, or, if its creation arrived first, its group seated.


def blind_looks(app: Any, held: Held, times: int, first_back: bool = False) -> dict[str, int]:
    """The looks at the held creation's race (`load_race` with `void`) fail `times` times: all
    of the seating's (retries.ATTEMPTS), then the background's. `first_back`: the held creation
    reaches Redis as the first failing background look is made. Returns the count of looks."""
    store = app.service.store
    real, looks = store.load_race, {"n": 0}

    async def load_race(rid: str, **kw: Any) -> Any:
        if kw.get("void") and held.call is not None and rid == held.call[0][1].race:
            looks["n"] += 1
            if looks["n"] <= times:
                if first_back and looks["n"] == retries.ATTEMPTS + 1:
                    await held.late()
                raise Blip("redis blip while looking for a lost race")
        return await real(rid, **kw)

    store.load_race = load_race
    return looks


async def test_a_group_whose_race_redis_could_not_tell_is_given_up_once_it_answers(make_server, clean_redis):
    app = await make_server()
    store = app.service.store
    held = held_creation(app)
    looks = blind_looks(app, held, retries.ATTEMPTS + 2)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    await until(lambda: held.call is not None, what="the creation sent")
    assert held.call is not None
    rid = held.call[0][1].race
    await until(lambda: looks["n"] > retries.ATTEMPTS, what="a look in the background")
    assert task_in("later") in app.service.tasks  # the server's: its stop cancels it
    await until(lambda: store.redis.exists(void_key(rid)), what="the race given up")
    assert looks["n"] == retries.ATTEMPTS + 3
    with pytest.raises(Conflict, match="given up"):
        await held.late()
    assert (await store.load_race(rid))[1] is None
    assert await waiting(app) == []  # unknown: the entries were dropped, as before
    await asyncio.gather(ada.close(), bob.close())


async def test_a_group_whose_race_arrived_before_redis_answered_is_seated_in_it(make_server, clean_redis):
    app = await make_server()
    held = held_creation(app)
    looks = blind_looks(app, held, retries.ATTEMPTS + 2, first_back=True)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    races = [await c.wait(in_race) for c in (ada, bob)]
    assert held.call is not None
    assert races[0]["race"] == races[1]["race"] == held.call[0][1].race
    assert looks["n"] == retries.ATTEMPTS + 3
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {races[0]["race"]}
    await asyncio.gather(ada.close(), bob.close())


# --- what the players did while their group was out -----------------------------------------
# A group is out of its queue while its race is made. If it goes back, an entry whose player
# unqueued meanwhile, or whose every connection closed, must not: it would be matched again,
# and its player seated in a race they left (or are not there to play).


async def test_a_casual_entry_unqueued_while_its_group_was_out_is_not_put_back(make_server, clean_redis):
    app = await make_server()
    reached, go_on = failing_deals_after_a_while(app, quick_match.SEAT_ATTEMPTS)
    ada, bob, cy = [await player(app.ws_url, n) for n in ("ada", "bob", "cy")]
    for c in (ada, bob):
        await queued(c)
    await reached.wait()
    assert (await ada.request("unqueue", game=GAME))["t"] == "ok"
    go_on.set()
    await until(lambda: waiting(app), what="the group back in its queue")
    assert await waiting(app) == [bob.player]
    assert await seat_set(clean_redis, ada.player) == set()  # the entry's seat went with it
    assert await seat_set(clean_redis, bob.player) == {quick_hold(GAME, 2)}
    await queued(cy)
    races = [await c.wait(in_race) for c in (bob, cy)]
    assert races[0]["race"] == races[1]["race"]
    assert not [f for f in ada.unread if in_race(f)]
    await asyncio.gather(ada.close(), bob.close(), cy.close())


async def test_a_casual_entry_whose_connection_closed_while_its_group_was_out_is_not_put_back(
    make_server, clean_redis
):
    app = await make_server()
    reached, go_on = failing_deals_after_a_while(app, quick_match.SEAT_ATTEMPTS)
    seen = closes_seen(app)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    await reached.wait()
    await close(ada, seen)
    go_on.set()
    await until(lambda: waiting(app), what="the group back in its queue")
    assert await waiting(app) == [bob.player]
    assert await seat_set(clean_redis, ada.player) == set()
    await bob.close()


def task_in(name: str) -> asyncio.Task[Any]:
    """The one task whose chain of awaits runs through a coroutine function named `name`."""
    found = []
    for task in asyncio.all_tasks():
        coro: Any = task.get_coro()
        while coro is not None and hasattr(coro, "cr_code"):
            if coro.cr_code.co_name == name:
                found.append(task)
                break
            coro = coro.cr_await
    [task] = found
    return task


async def test_a_group_cancelled_while_finding_out_gives_its_seats_back(make_server, clean_redis):
    app = await make_server()
    failing_deals(app, 1)
    reached, _go_on = stop_first(app.service.store, "load_race")  # "was the race stored?"
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    for c in (ada, bob):
        await queued(c)
    await reached.wait()
    # Cancelled there (as at the end of a shutdown): the entries are out of the queue for good.
    task = task_in("seat_queued")
    task.cancel()
    await asyncio.wait([task])
    assert await waiting(app) == []
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == set()
    await asyncio.gather(ada.close(), bob.close())


@pytest.mark.parametrize("how", ["unqueue", "close"])
async def test_a_rated_entry_left_while_its_group_was_out_is_not_put_back(how, make_server, clean_redis):
    app = await make_server(**CHEAP_HASH)
    reached, go_on = failing_deals_after_a_while(app, 1)
    seen = closes_seen(app)
    ada, bob, cyd = [await account(app.ws_url, n) for n in ("ada", "bob", "cyd")]
    for c in (ada, bob):
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    await reached.wait()
    if how == "unqueue":
        assert (await ada.request("unqueue", game=GAME))["t"] == "ok"
    else:
        await close(ada, seen)
    go_on.set()
    await until(lambda: app.rated.pool.has(GAME, bob.player), what="bob back in the pool")
    assert not await app.rated.pool.has(GAME, ada.player)
    assert await seat_set(clean_redis, ada.player) == set()  # the entry's seat went with it
    assert (await cyd.request("quick", game=GAME, rated=True))["t"] == "queued"
    races = [await c.wait(lambda f: in_race(f) and f.get("rated") is True) for c in (bob, cyd)]
    assert races[0]["race"] == races[1]["race"]
    if how == "unqueue":
        assert not [f for f in ada.unread if in_race(f)]
        await ada.close()
    await asyncio.gather(bob.close(), cyd.close())
