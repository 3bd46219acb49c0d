"""A matched group whose race could not be made is not lost (server/handlers/seating.py).

A casual quick-match group or a rated pool group is out of its queue once formed. If
seating it fails before its race is stored, the casual group is tried again and then put
back at the head of its queue, each entry with its holders and claims; the rated group goes
back to the pool, which forms it again. If it fails after the race was stored, the players
sit in that race all the same. The failures are injected into the real server's lobby and
store (Redis blips); everything else is real: Redis, sockets, the queue scripts.
"""

from __future__ import annotations

import asyncio
from typing import Any

from injected import fail_first
from seat_probe import seat_set
from test_server_accounts import CHEAP_HASH, account
from test_server_quick_queue import GAME, queued, waiting
from test_server_rated_pool import close, closes_seen
from waiting import until
from wsclient import player

from server.handlers import quick_match
from server.storage.players import quick_hold


def failing_deals(app: Any, times: int) -> dict[str, int]:
    """The lobby's `new_deal` fails its first `times` calls (before any race is stored)."""
    return fail_first(app.service.lobby, "new_deal", times, why="redis blip while dealing")


def failing_seat_once(app: Any, pid: str) -> None:
    """The store's `add_seat` fails once for `pid`: after the race's commit."""
    fail_first(app.service.store, "add_seat", who=pid, why="redis blip after the commit")


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
