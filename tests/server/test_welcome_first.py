"""`welcome` is the first frame after a hello (docs/protocol.md §2), even when an event of the
player's races reaches the connection between its registration and its welcome: a seat taken
on another connection of the player meanwhile sent the race's snapshot first, and the client
library gave up ("expected welcome, got race": a fresh-clone run failed on it once)."""

from __future__ import annotations

import asyncio

import msgpack
from waiting import until
from wsclient import Raw, player


async def test_an_event_during_a_hello_waits_for_the_welcome(server, monkeypatch) -> None:
    first = await player(server.ws_url, "ada")
    hooks = server.service.session.registered_hooks
    entered, go = asyncio.Event(), asyncio.Event()

    async def slow_hook(s) -> None:  # run by hello once the connection is registered
        entered.set()
        await go.wait()

    monkeypatch.setattr(server.service.session, "registered_hooks", [slow_hook, *hooks])
    second = await Raw.open(server.ws_url)
    await second.send({"t": "hello", "v": 1, "token": first.token, "rid": 1})
    await asyncio.wait_for(entered.wait(), 30)
    race = await first.request("create", game="fours-up", seats=2)  # seated: every connection hears it
    assert race["t"] == "race"
    go.set()
    await until(lambda: len(second.frames) >= 2, what="the welcome and the race's snapshot")
    kinds = [msgpack.unpackb(f)["t"] for f in second.frames]
    assert kinds[0] == "welcome", kinds
    assert "race" in kinds[1:], kinds
    await asyncio.gather(first.close(), second.close())
