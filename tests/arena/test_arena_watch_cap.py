"""Arena watches on the wire: a bounded number per connection, and only of known arenas.

Each watched arena costs the server process a Redis pub/sub channel and a standings read
every update pass; unbounded watches let one client make thousands.
"""

from __future__ import annotations

import pytest
from waiting import until

import client
from protocol import messages as m
from server.handlers.arena import MAX_ARENA_WATCHES
from server.handlers.arena_loop import ArenaLoop

pytestmark = pytest.mark.timeout(60)

ARENA = {"arena_create": 1, "arena_schedule": "off", "arena_tick_ms": 200, "arena_update_ms": 200}


def arena_channels(app) -> set[str]:
    return {c for c in app.service.bus.channels if c.startswith("{arena:")}


async def test_a_connection_watches_a_bounded_number_of_arenas(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ada") as ada, client.connect(app.ws_url, name="bob") as bob:
        ids = [f"cap{k}" for k in range(MAX_ARENA_WATCHES + 1)]
        for arena in ids:
            await ada.request(m.ArenaCreate(arena=arena, game="fours-up", duration_ms=600_000))
        for arena in ids[:-1]:
            board = await ada.request(m.ArenaStandings(arena=arena, watch=True))
            assert board.arena == arena
        assert len(arena_channels(app)) == MAX_ARENA_WATCHES
        # One more arena is refused, and subscribes nothing.
        with pytest.raises(client.ServerError) as e:
            await ada.request(m.ArenaStandings(arena=ids[-1], watch=True))
        assert e.value.code == "too-many-races"
        assert len(arena_channels(app)) == MAX_ARENA_WATCHES
        # An arena already watched may be asked again, and any read without watching.
        await ada.request(m.ArenaStandings(arena=ids[0], watch=True, top=3))
        await ada.request(m.ArenaStandings(arena=ids[-1]))
        # The limit is per connection: another one watches on its own count.
        await bob.request(m.ArenaStandings(arena=ids[-1], watch=True))
        assert len(arena_channels(app)) == MAX_ARENA_WATCHES + 1
        # An unwatch frees a place.
        await ada.request(m.ArenaUnwatch(arena=ids[1]))
        await ada.request(m.ArenaStandings(arena=ids[-1], watch=True))
        with pytest.raises(client.ServerError) as e:
            await ada.request(m.ArenaStandings(arena=ids[1], watch=True))
        assert e.value.code == "too-many-races"
        # An unknown arena is refused and subscribes nothing, within the limit or not.
        await ada.request(m.ArenaUnwatch(arena=ids[2]))
        with pytest.raises(client.ServerError) as e:
            await ada.request(m.ArenaStandings(arena="nope", watch=True))
        assert e.value.code == "no-arena"
        assert ArenaLoop.channel("nope") not in arena_channels(app)
        await ada.request(m.ArenaStandings(arena=ids[2], watch=True))  # its place is still free
    # Gone with their connections.
    await until(lambda: not arena_channels(app), what="the watches dropped at the disconnect")
    handlers = app.service.handlers[m.ArenaStandings].__self__
    assert not handlers.watching and not handlers.watchers
