"""A daily leaderboard marks accounts, live and when read, and never a guest (docs/protocol.md
§5): a real server, the client library, a real Redis."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

from client.library import connect
from protocol import messages as m

GAME = "racing-aces"
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)

pytestmark = pytest.mark.daily


async def attempt(c, bob) -> m.LeaderboardUpdate:
    """`c` starts today's attempt and declares it finished at once: Bob's live update of it."""
    rid = (await c.request(m.DailyStart(game=GAME))).race
    await c.wait_for("start", lambda ev: ev.race == rid)
    await c.finish(rid)
    return await bob.wait_for("leaderboard_update", lambda ev: ev.entry.player == c.player, timeout=DEADLINE)


async def test_the_board_marks_the_account_and_not_the_guest_who_looks_like_it(make_server):
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    async with (
        connect(url, name="ada") as ada,
        connect(url, name="ada_") as eve,
        connect(url, name="bob") as bob,
    ):
        assert (await ada.request(m.Claim(name="ada", password="correct horse"))).name == "ada"
        await bob.request(m.Leaderboard(game=GAME, watch=True))
        assert (await attempt(ada, bob)).entry.account is True
        assert (await attempt(eve, bob)).entry.account is False
        board = await bob.request(m.Leaderboard(game=GAME, top=5))
        assert {e.name: e.account for e in board.top} == {"ada": True, "ada_": False}
        mine = await eve.request(m.Leaderboard(game=GAME, top=1, around=2))
        assert mine.me is not None and mine.me.account is False
