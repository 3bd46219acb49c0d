"""Limits against one client filling the server: races spectated per connection
(`--max-spectating`) and open public lobbies per client address, counted over every
process in Redis (`--max-public-lobbies-per-addr`). Both refuse with `too-many-races`,
and a refused request changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from waiting import until
from wsclient import Raw, player

GAME = "fours-up"


async def spectators(c: Raw, rid: str) -> int:
    """The spectator count of a public race, as the race list has it."""
    listing = await c.request("races")
    return int(next(x for x in listing["races"] if x["race"] == rid)["spectators"])


async def one_seat_race_ends(c: Raw, rid: str) -> None:
    """The only player of a one-seat lobby readies (it starts) and finishes: the race ends."""
    await c.request("ready", race=rid)
    await c.wait(lambda f: f.get("t") == "start" and f.get("race") == rid)
    assert (await c.request("finish", race=rid))["t"] != "error"
    await c.wait(lambda f: f.get("t") == "end" and f.get("race") == rid)


async def test_spectating_is_limited_per_connection(make_server):
    app = await make_server(max_spectating=2)
    host = await player(app.ws_url, "host")
    solo = (await host.request("create", game=GAME, seats=1))["race"]
    rids = [solo] + [(await host.request("create", game=GAME, seats=3))["race"] for _ in range(3)]
    eve = await player(app.ws_url, "eve")
    for rid in rids[:2]:
        assert (await eve.request("spectate", race=rid))["t"] == "race"
    refused = await eve.request("spectate", race=rids[2])
    assert refused["code"] == "too-many-races", refused
    # Nothing changed: not counted, not watching.
    assert await spectators(host, rids[2]) == 0
    room = app.service.local[rids[2]]
    assert not room.spectators
    assert (await eve.request("spectate", race=rids[1]))["t"] == "race"  # watched already: no-op
    # Per connection: another connection of the same player has its own slots.
    twin = await Raw.open(app.ws_url)
    await twin.hello(token=eve.token)
    assert (await twin.request("spectate", race=rids[2]))["t"] == "race"
    await twin.close()
    # The end of a watched race frees its slot...
    await one_seat_race_ends(host, solo)
    await until(lambda: solo not in _watching(app, eve.player), what="the ended race's slot freed")
    assert (await eve.request("spectate", race=rids[2]))["t"] == "race"
    assert (await eve.request("spectate", race=rids[3]))["code"] == "too-many-races"
    # ... and so does unspectate.
    assert (await eve.request("unspectate", race=rids[1]))["t"] == "ok"
    assert (await eve.request("spectate", race=rids[3]))["t"] == "race"
    assert await spectators(host, rids[3]) == 1
    await asyncio.gather(host.close(), eve.close())


def _watching(app: Any, pid: str) -> set[str]:
    """The races the connections of `pid` on `app` spectate."""
    return {rid for s in app.service.players.get(pid, ()) for rid in s.spectating}


async def create(c: Raw, **fields: Any) -> dict[str, Any]:
    return await c.request("create", game=GAME, **fields)


async def listed(c: Raw) -> set[str]:
    return {x["race"] for x in (await c.request("races"))["races"]}


async def test_open_public_lobbies_are_limited_per_address_over_processes(make_server):
    # Loopback is exempt by default (--limit-exempt): these servers exempt nobody.
    limits = dict(max_public_lobbies_per_addr=3, limit_exempt="")
    app1, app2 = await make_server(**limits), await make_server(**limits)
    ada, bob = await player(app1.ws_url, "ada"), await player(app2.ws_url, "bob")
    solo = (await create(ada, seats=1))["race"]
    kept = [(await create(ada))["race"], (await create(bob))["race"]]
    # A fourth public lobby from this address, on either process, by any player: refused.
    for c in (ada, bob):
        refused = await create(c)
        assert refused["code"] == "too-many-races", refused
    assert await listed(bob) == {solo, *kept}  # nothing was created
    assert len(await app2.store.player_races(bob.player)) == 1
    private = await create(bob, private=True)  # not listed: not limited
    assert private["t"] == "race" and private["private"] is True
    # A lobby that starts is no longer an open lobby: a slot is free.
    await one_seat_race_ends(ada, solo)
    third = await create(bob)
    assert third["t"] == "race", third
    assert (await create(ada))["code"] == "too-many-races"
    # A lobby everyone left frees its slot too.
    assert (await bob.request("leave", race=third["race"]))["t"] == "race"
    assert (await create(ada))["t"] == "race"
    assert (await create(bob))["code"] == "too-many-races"
    # An exempt address (loopback, the default) is not counted.
    app3 = await make_server(max_public_lobbies_per_addr=3)
    cyd = await player(app3.ws_url, "cyd")
    assert (await create(cyd))["t"] == "race"
    await asyncio.gather(ada.close(), bob.close(), cyd.close())


async def test_public_lobbies_created_at_once_never_pass_the_limit(make_server):
    limits = dict(max_public_lobbies_per_addr=3, limit_exempt="")
    apps = [await make_server(**limits), await make_server(**limits)]
    players = [await player(apps[i % 2].ws_url, f"p{i}") for i in range(10)]
    replies = await asyncio.gather(*(create(c) for c in players))
    made = [r["race"] for r in replies if r["t"] == "race"]
    assert all(r["code"] == "too-many-races" for r in replies if r["t"] != "race"), replies
    assert len(made) <= 3
    assert await listed(players[0]) == set(made)
    # The refused creates kept nothing: one after the other, the free slots fill up exactly.
    for c in players[len(made) : 3]:
        assert (await create(c))["t"] == "race"
    assert (await create(players[-1]))["code"] == "too-many-races"
    assert len(await listed(players[0])) == 3
    await asyncio.gather(*(c.close() for c in players))


async def test_a_rematch_is_a_public_lobby_too(make_server):
    """A rematch of a public race lists a new lobby: counted like a create (else create,
    finish, rematch was a way around the limit)."""
    app = await make_server(max_public_lobbies_per_addr=1, limit_exempt="")
    ada = await player(app.ws_url, "ada")
    solo = (await create(ada, seats=1))["race"]
    await one_seat_race_ends(ada, solo)  # started: no longer an open lobby
    kept = (await create(ada))["race"]  # the address's one open public lobby
    refused = await ada.request("rematch", race=solo)
    assert refused["code"] == "too-many-races", refused
    assert await listed(ada) == {kept}  # nothing was created
    assert (await ada.request("leave", race=kept))["t"] == "race"
    again = await ada.request("rematch", race=solo)
    assert again["t"] == "race" and again["race"] != kept, again
    await ada.close()
