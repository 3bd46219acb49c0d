"""A `hello` resuming a player drops only the seats of races that are over (handlers/session.py
`_rejoin`), through the seats' own prune (storage/seats.lua): never a waiting quick-match
entry's seat (no race has its id) nor the seat reserved for a create or join in progress
(its race not stored yet). Else a second connection's hello would free a seat that is
taken, and MAX_RACES_PER_PLAYER could be passed."""

from __future__ import annotations

import asyncio
from typing import Any

from seat_probe import seat_set
from wsclient import Raw, player

from server.storage.keys import race_key
from server.storage.players import quick_hold

GAME = "fours-up"


async def test_hello_keeps_a_waiting_quick_entry_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    cy = await player(app.ws_url, "cy")
    assert (await cy.request("quick", game=GAME, seats=3))["t"] == "queued"
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"
    twin = await Raw.open(app.ws_url)  # another connection of the player: a reconnect, a tab
    welcome = await twin.hello(token=cy.token)
    assert welcome["races"] == []  # a queue entry is no race
    assert await seat_set(clean_redis, cy.player) == {quick_hold(GAME, 3)}
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"
    assert (await twin.request("unqueue", game=GAME))["t"] == "ok"
    assert (await cy.request("create", game=GAME))["t"] == "race"
    await asyncio.gather(cy.close(), twin.close())


async def test_hello_keeps_the_seat_of_a_create_in_progress(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    lobby = app.service.lobby
    real = lobby.new_deal
    dealing, go = asyncio.Event(), asyncio.Event()

    async def slow_deal(game: str, certified: bool | None) -> Any:
        dealing.set()
        await go.wait()
        return await real(game, certified)

    lobby.new_deal = slow_deal  # the create waits, its seat reserved and its race not stored
    first = asyncio.ensure_future(ada.request("create", game=GAME))
    twin = await Raw.open(app.ws_url)
    try:
        await dealing.wait()
        (rid,) = await seat_set(clean_redis, ada.player)
        welcome = await twin.hello(token=ada.token)
        assert welcome["races"] == []  # not stored yet
        assert await seat_set(clean_redis, ada.player) == {rid}  # but not dropped
        lobby.new_deal = real
        assert (await twin.request("create", game=GAME))["code"] == "too-many-races"
    finally:
        go.set()
    assert (await first)["race"] == rid
    assert await seat_set(clean_redis, ada.player) == {rid}
    await asyncio.gather(ada.close(), twin.close())


async def test_hello_drops_the_seat_of_a_race_left_elsewhere(make_server, clean_redis):
    """What the prune is for: a seat whose race no longer holds the player goes at the hello."""
    app = await make_server(max_races_per_player=1)
    ada = await player(app.ws_url, "ada")
    rid = (await ada.request("create", game=GAME))["race"]
    await app.service.store.redis.delete(race_key(rid))  # expired, say
    twin = await Raw.open(app.ws_url)
    assert (await twin.hello(token=ada.token))["races"] == []
    assert await seat_set(clean_redis, ada.player) == set()
    await asyncio.gather(ada.close(), twin.close())
