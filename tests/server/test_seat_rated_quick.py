"""A waiting rated pool entry holds one of the player's MAX_RACES_PER_PLAYER seats, as a
casual quick-match entry does (`rated_hold`, one per game): counted and taken in one step
with the others, and given back when the entry leaves (`unqueue`, the last connection that
queued closing, a revoked login session) or when its race seats the player (the race's seat
replaces it)."""

from __future__ import annotations

import asyncio

from seat_probe import seat_set
from test_server_accounts import CHEAP_HASH, account, logged_in
from waiting import until

from server.storage.players import rated_hold

GAME = "racing-aces"
OTHER = "fours-up"


async def no_seats(redis_url: str, pid: str) -> bool:
    return not await seat_set(redis_url, pid)


async def test_a_waiting_rated_entry_holds_a_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=2, max_public_lobbies_per_addr=0, **CHEAP_HASH)
    ada = await account(app.ws_url, "ada")
    rid = (await ada.request("create", game=GAME))["race"]
    assert (await ada.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert await seat_set(clean_redis, ada.player) == {rid, rated_hold(GAME)}
    # At the limit: no other game's rated entry, no casual one, no create.
    assert (await ada.request("quick", game=OTHER, rated=True))["code"] == "too-many-races"
    assert (await ada.request("quick", game=OTHER))["code"] == "too-many-races"
    assert (await ada.request("create", game=OTHER))["code"] == "too-many-races"
    # The same game again (another size): the same entry, no new seat.
    assert (await ada.request("quick", game=GAME, seats=3, rated=True))["t"] == "queued"
    assert (await ada.request("unqueue", game=GAME))["t"] == "ok"
    assert await seat_set(clean_redis, ada.player) == {rid}
    assert (await ada.request("quick", game=OTHER, rated=True))["t"] == "queued"
    await ada.close()


async def test_a_rated_entry_seat_goes_with_its_last_connection(make_server, clean_redis):
    app = await make_server(max_races_per_player=1, **CHEAP_HASH)
    ada = await account(app.ws_url, "ada")
    pid = ada.player
    assert (await ada.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert await seat_set(clean_redis, pid) == {rated_hold(GAME)}
    await ada.close()
    await until(lambda: no_seats(clean_redis, pid), what="the closed entry's seat given back")


async def test_a_seated_rated_group_keeps_only_its_race_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=1, **CHEAP_HASH)
    ada, bob = await account(app.ws_url, "ada"), await account(app.ws_url, "bob")
    for c in (ada, bob):
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    race = await ada.wait(lambda f: f.get("t") == "race" and f.get("rated") is True)
    for c in (ada, bob):
        assert await seat_set(clean_redis, c.player) == {race["race"]}
    assert (await ada.request("create", game=GAME))["code"] == "too-many-races"
    await asyncio.gather(ada.close(), bob.close())


async def test_a_revoked_rated_entry_gives_its_seat_back(make_server, clean_redis):
    app = await make_server(max_races_per_player=1, **CHEAP_HASH)
    ada = await account(app.ws_url, "ada")
    pid = ada.player
    other = await logged_in(app.ws_url, ada, "ada")  # another login session of ada's
    assert (await ada.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert await seat_set(clean_redis, pid) == {rated_hold(GAME)}
    assert (await other.request("logout_all"))["t"] == "ok"  # ada's session too
    await until(lambda: no_seats(clean_redis, pid), what="the revoked entry's seat given back")
    assert not await app.rated.pool.has(GAME, pid)
    await asyncio.gather(ada.close(), other.close())
