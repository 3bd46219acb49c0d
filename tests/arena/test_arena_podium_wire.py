"""The winners of an arena in the account profiles, through the protocol on a real server."""

from __future__ import annotations

import json

import pytest
from arena_wire import SERVER, race_the_pairing
from waiting import until

import client
from protocol import messages as m
from server.arena import keys
from server.arena.store import Podium
from server.handlers.arena import PODIUMS_LISTED

pytestmark = pytest.mark.timeout(120)


async def test_the_podium_shows_in_the_winners_profile(make_server) -> None:
    app = await make_server(**SERVER)
    async with client.connect(app.ws_url, name="ada") as a, client.connect(app.ws_url, name="bob") as b:
        for c, name in ((a, "ada"), (b, "bob")):
            await c.request(m.Claim(name=name, password="correct horse"))
        await a.request(m.ArenaCreate(arena="cup", game="racing-aces", duration_ms=10_000, name="The Cup"))
        for c in (a, b):
            await c.arena_join("cup")
        # ada makes the one move (more moves rank first among equal cards home): her win, 2 points;
        # bob never moves: absent, 0 points
        await race_the_pairing(a, b, "cup")

        async def finished() -> m.ArenaStandingsData | None:
            board = await a.arena_standings("cup")
            return board if board.final else None

        board = await until(finished)  # the arena ends 10 s after its creation
        assert [(r.rank, r.player, r.points) for r in board.top] == [(1, a.player, 2), (2, b.player, 0)]

        async def podiums() -> list[m.ArenaPodium] | None:
            profile: m.ProfileData = await b.request(m.Profile(player=a.player))
            return profile.arenas

        places = await until(podiums)
        assert [(p.arena, p.name, p.game, p.rank, p.points, p.players) for p in places] == [
            ("cup", "The Cup", "racing-aces", 1, 2, 2)
        ]
        mine: m.ProfileData = await b.request(m.Profile())
        assert mine.arenas is None  # no point, no podium


async def test_a_profile_lists_the_latest_podiums(make_server) -> None:
    app = await make_server(**SERVER)
    store = app.service.handlers[m.Arenas].__self__.store
    async with client.connect(app.ws_url, name="ada") as a:
        await a.request(m.Claim(name="ada", password="correct horse"))
        places = {
            f"a{i}": Podium(f"a{i}", f"Cup {i}", "racing-aces", 1_000_000 + i, 1, 2, 2)
            for i in range(PODIUMS_LISTED + 5)
        }
        await store.r.hset(
            keys.podiums(a.player), mapping={k: json.dumps(p.to_dict()) for k, p in places.items()}
        )
        profile: m.ProfileData = await a.request(m.Profile())
    assert profile.arenas is not None
    assert [p.arena for p in profile.arenas] == [f"a{i}" for i in range(PODIUMS_LISTED + 4, 4, -1)]
