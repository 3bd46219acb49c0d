"""MAX_RACES_PER_PLAYER holds against requests at once: one player's `create`, `join` and
`quick` sent together on several connections, served by two server processes on one Redis,
never take more seats than the limit (the seat is counted and taken in one step in Redis,
server/storage/seats.lua), and a refused or failed request keeps no seat."""

from __future__ import annotations

import asyncio
from typing import Any

from seat_probe import seat_set
from wsclient import Raw, player

GAME = "fours-up"
TWINS = 6  # connections of one player sending at once (with the first: MAX_CONN_PER_PLAYER 8 allows it)


async def twins(urls: list[str], token: str) -> list[Raw]:
    """`TWINS` more connections of the player of `token`, spread over the servers of `urls`."""
    conns = [await Raw.open(urls[i % len(urls)]) for i in range(TWINS)]
    for c in conns:
        await c.hello(token=token)
    return conns


async def seats_of(url: str, token: str) -> list[str]:
    """The player's seats as a new connection's `welcome` lists them."""
    c = await Raw.open(url)
    w = await c.hello(token=token)
    await c.close()
    return list(w["races"])


def outcome(replies: list[dict[str, Any]], ok: str) -> tuple[int, int]:
    passed = sum(r["t"] == ok for r in replies)
    refused = sum(r.get("code") == "too-many-races" for r in replies)
    assert passed + refused == len(replies), replies
    return passed, refused


async def test_creates_at_once_never_pass_the_limit(make_server, clean_redis):
    limit = 4
    apps = [await make_server(max_races_per_player=limit, max_public_lobbies_per_addr=0) for _ in range(2)]
    urls = [a.ws_url for a in apps]
    ada = await player(urls[0], "ada")
    for _ in range(limit - 1):
        assert (await ada.request("create", game=GAME))["t"] == "race"
    conns = await twins(urls, ada.token)
    replies = await asyncio.gather(*(c.request("create", game=GAME) for c in conns))
    assert outcome(replies, "race") == (1, TWINS - 1)
    assert len(await seats_of(urls[1], ada.token)) == limit
    assert len(await seat_set(clean_redis, ada.player)) == limit  # the refused ones kept nothing
    # A seat given up is free again, for exactly one of the next ones at once.
    rid = next(r["race"] for r in replies if r["t"] == "race")
    assert (await ada.request("leave", race=rid))["t"] == "race"
    replies = await asyncio.gather(*(c.request("create", game=GAME, private=True) for c in conns))
    assert outcome(replies, "race") == (1, TWINS - 1)
    assert len(await seat_set(clean_redis, ada.player)) == limit
    assert len(await apps[1].service.store.player_races(ada.player)) == limit
    await asyncio.gather(ada.close(), *(c.close() for c in conns))


async def test_joins_at_once_never_pass_the_limit(make_server, clean_redis):
    limit = 8  # the host's lobbies (TWINS) fit in it too
    apps = [await make_server(max_races_per_player=limit, max_public_lobbies_per_addr=0) for _ in range(2)]
    urls = [a.ws_url for a in apps]
    host = await player(urls[0], "host")
    lobbies = [(await host.request("create", game=GAME, seats=2))["race"] for _ in range(TWINS)]
    bea = await player(urls[1], "bea")
    for _ in range(limit - 1):
        assert (await bea.request("create", game=GAME, seats=1))["t"] == "race"
    conns = await twins(urls, bea.token)
    replies = await asyncio.gather(
        *(c.request("join", race=rid) for c, rid in zip(conns, lobbies, strict=True))
    )
    assert outcome(replies, "race") == (1, TWINS - 1)
    assert len(await seats_of(urls[0], bea.token)) == limit
    assert len(await seat_set(clean_redis, bea.player)) == limit
    await asyncio.gather(host.close(), bea.close(), *(c.close() for c in conns))


async def test_a_failed_join_gives_its_seat_back(make_server, clean_redis):
    app = await make_server(max_races_per_player=2)
    host = await player(app.ws_url, "host")
    rid = (await host.request("create", game=GAME, seats=1))["race"]  # full already
    bea = await player(app.ws_url, "bea")
    assert (await bea.request("create", game=GAME))["t"] == "race"
    for _ in range(3):
        assert (await bea.request("join", race=rid))["code"] == "race-full"
    assert len(await seat_set(clean_redis, bea.player)) == 1
    assert (await bea.request("create", game=GAME))["t"] == "race"
    await asyncio.gather(host.close(), bea.close())


async def test_quick_entries_at_once_never_pass_the_limit(make_server, clean_redis):
    """A waiting quick-match entry holds a seat: queued for several sizes at once, only as
    many as the limit allows are queued; leaving the queue gives the seat back."""
    limit = 3
    apps = [await make_server(max_races_per_player=limit) for _ in range(2)]
    urls = [a.ws_url for a in apps]
    cy = await player(urls[0], "cy")
    for _ in range(limit - 1):
        assert (await cy.request("create", game=GAME))["t"] == "race"
    conns = await twins(urls, cy.token)
    sizes = range(3, 3 + TWINS)  # nobody else queues: no group forms
    replies = await asyncio.gather(*(c.request("quick", game=GAME, seats=n) for c, n in zip(conns, sizes)))
    assert outcome(replies, "queued") == (1, TWINS - 1)
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"  # the entry holds it
    # Queued again for the same size from another connection: the same entry, no new seat.
    size = next(r["seats"] for r in replies if r["t"] == "queued")
    assert (await cy.request("quick", game=GAME, seats=size))["t"] == "queued"
    assert (await cy.request("unqueue", game=GAME))["t"] == "ok"
    assert (await cy.request("create", game=GAME))["t"] == "race"
    assert len(await seat_set(clean_redis, cy.player)) == limit
    await asyncio.gather(cy.close(), *(c.close() for c in conns))


async def test_a_quick_entry_seat_goes_with_its_last_connection(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    cy = await player(app.ws_url, "cy")
    twin = await Raw.open(app.ws_url)
    await twin.hello(token=cy.token)
    assert (await twin.request("quick", game=GAME, seats=3))["t"] == "queued"
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"
    await twin.close()
    for _ in range(100):  # the close's release is asynchronous
        if not await seat_set(clean_redis, cy.player):
            break
        await asyncio.sleep(0.02)
    assert (await cy.request("create", game=GAME))["t"] == "race"
    await cy.close()


async def test_a_seated_group_keeps_only_its_race_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    a, b = await player(app.ws_url, "a"), await player(app.ws_url, "b")
    assert (await a.request("quick", game=GAME))["t"] == "queued"
    assert (await b.request("quick", game=GAME))["t"] == "queued"
    race = await a.wait(lambda f: f.get("t") == "race" and f.get("rid") is None)
    for c in (a, b):
        assert await seat_set(clean_redis, c.player) == {race["race"]}
        assert await seats_of(app.ws_url, c.token) == [race["race"]]
    await asyncio.gather(a.close(), b.close())
