"""Arena standings say which players are accounts (`account`, docs/protocol.md §5a), and an
arena race is listed in its players' recent races as one (§9 `recent`): a real server."""

from __future__ import annotations

import pytest
from arena_wire import SERVER, race_the_pairing
from waiting import DEADLINE, until

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(120)


def accounts(rows: list[m.ArenaRow]) -> dict[str, bool]:
    return {r.player: r.account for r in rows}


async def test_standings_rows_tell_accounts_from_guests(make_server) -> None:
    app = await make_server(**SERVER)
    async with client.connect(app.ws_url, name="ada") as a, client.connect(app.ws_url, name="bob") as b:
        await a.request(m.Claim(name="ada", password="correct horse"))  # bob stays a guest
        await a.request(m.ArenaCreate(arena="cup", game="racing-aces", duration_ms=600_000))
        for c in (a, b):
            await c.arena_join("cup")
        board = await a.arena_standings("cup", watch=True)
        assert accounts(board.top) == {a.player: True, b.player: False}
        assert board.me is not None and board.me.account
        assert accounts(board.around) == accounts(board.top)

        # Paired: play the race (ada ranks first), and the live update carries the flags too.
        race = await race_the_pairing(a, b, "cup")
        update: m.ArenaUpdate = await a.wait_for(
            m.ArenaUpdate, lambda u: any(r.points for r in u.top), timeout=DEADLINE
        )
        assert accounts(update.top) == {a.player: True, b.player: False}

        # The race in both players' recent races: an arena race, named.
        for c in (a, b):

            async def listed(c: client.Client = c) -> list[m.RecentRace] | None:
                reply: m.RecentRaces = await c.request(m.Recent())
                return reply.races or None

            races = await until(listed, what="the arena race in the recent races")
            assert [(e.race, e.kind, e.arena, e.players) for e in races] == [(race, "arena", "cup", 2)]

        # A guest who claims an account shows as one from then on, by the account's name.
        await b.request(m.Claim(name="Bobby", password="correct horse"))
        board = await b.arena_standings("cup")
        assert accounts(board.top) == {a.player: True, b.player: True}
        assert {r.player: r.name for r in board.top} == {a.player: "ada", b.player: "Bobby"}
