"""The client library's daily, account and rating methods against a real server and a
real Redis (fixtures from tests/conftest.py; docs/protocol.md §5 and §9)."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(90)

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse battery"
GAME = "fours-up"


async def test_claim_login_logout_profile_and_rating_board(make_server) -> None:
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    async with client.connect(url, name="ada", reconnect=True) as c:
        guest = c.player
        acct = await c.claim("ada", PW)
        assert acct.player == guest and acct.name == "ada"
        # the guest's token resumes nothing now: the client keeps the account's for reconnections
        assert c.token == acct.token and "." in acct.token
        profile = await c.profile()
        assert profile.player == guest and profile.name == "ada"
        game = next(g for g in profile.ratings if g.game == GAME)
        assert game.rating.races == 0 and game.rating.provisional and game.history == []
        board = await c.rating_board(GAME, top=5, around=1)
        assert board.game == GAME and board.count == 0 and board.top == [] and board.me is None

    async with client.connect(url, name="visitor") as other:
        with pytest.raises(client.ServerError) as e:
            await other.login("ada", "wrong password")
        assert e.value.code == "bad-login"
        login = await other.login("ada", PW)
        assert login.player == guest and login.token != acct.token
        assert other.player != guest and other.token != login.token  # this connection stays a guest
        with pytest.raises(client.ServerError) as e:
            await other.profile()
        assert e.value.code == "no-such-account"
        with pytest.raises(client.ServerError) as e:
            await other.logout()
        assert e.value.code == "not-logged-in"

    async with client.connect(url, token=login.token) as c:
        assert c.player == guest
        assert isinstance(await c.logout(), m.Ok)
    with pytest.raises(client.ServerError) as e:
        async with client.connect(url, token=login.token):
            pass
    assert e.value.code == "bad-token"


@pytest.mark.daily
async def test_daily_start_play_leaderboard_history(make_server) -> None:
    app = await make_server()
    async with client.connect(app.ws_url, name="ada") as c:
        info = await c.daily(GAME)
        assert info.game == GAME and info.status == "open" and info.you is None
        snap = await c.daily_start(GAME)
        assert snap.private and snap.seats == 1 and [p.player for p in snap.players] == [c.player]
        assert (await c.daily_start(GAME)).race == snap.race  # the same attempt
        await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
        await c.move(snap.race, "draw")
        await c.finish(snap.race)
        await c.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE)

        info = await c.daily(GAME, date=info.date)
        assert info.you is not None and info.you.status == "done" and info.you.entry is not None
        board = await c.leaderboard(GAME, top=3, around=1)
        assert board.count == 1 and board.me is not None and board.me.rank == 1
        assert [e.player for e in board.top] == [c.player]
        history = await c.history(GAME, days=5)
        assert history.played == 1 and history.streak == 1 and history.days[0].race == snap.race
        with pytest.raises(client.ServerError) as e:
            await c.daily_start(GAME)
        assert e.value.code == "daily-done"
