"""The client library against the real server (fixtures from tests/conftest.py).

A whole two-player race through the library: boards kept from acks equal the
server's views, versions never jump (no resync needed), the end reveals a
seed matching the commitment, and the replay re-deals to the same boards.
Then resuming an identity with the token on a second server process.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from waiting import DEADLINE

import client
from protocol import messages as m
from protocol import rules

pytestmark = pytest.mark.timeout(60)

GAME = "racing-aces"


async def _play(c: client.Client, race: str, rng: random.Random, moves: int) -> list[str]:
    """Play random legal moves, asking for the view on each to check the board."""
    played = []
    legal = c.board(race).legal
    for _ in range(moves):
        if not legal:
            view = c.board(race).view
            assert view is not None
            ack = await c.move(race, "draw", view=True) if view.stock else None
            if ack is None:
                break
        else:
            plays = [mv for mv in legal if mv != "draw"]
            mv = rng.choice(plays) if plays and rng.random() < 0.6 else rng.choice(legal)
            ack = await c.move(race, mv, view=True)
        assert ack.view == c.board(race).view_text  # the local update matches the server
        assert ack.n == c.board(race).n
        played.append(ack.move)
        legal = ack.legal
        if ack.won:
            break
    return played


async def test_a_whole_race_through_the_library(ws_url: str) -> None:
    async with client.connect(ws_url, name="ada") as a, client.connect(ws_url, name="bob") as b:
        snap = await a.create(GAME, seats=2, time_limit_s=60)
        assert snap.host == a.player and snap.status == "lobby"
        joined = await b.join(snap.race)
        assert [p.player for p in joined.players] == [a.player, b.player]
        await a.ready(snap.race)
        await b.ready(snap.race)
        starts = [
            await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=DEADLINE) for c in (a, b)
        ]
        assert starts[0].view == starts[1].view  # the same deal for everyone
        assert a.board(snap.race).view_text == starts[0].view
        # The start gives no legal list: fetch it once through a resync.
        for c in (a, b):
            state = await c.resync(snap.race)
            assert state.you is not None and state.you.n == 0
            assert c.board(snap.race).legal == state.you.legal

        played_a = await _play(a, snap.race, random.Random(1), 40)
        played_b = await _play(b, snap.race, random.Random(2), 30)
        ev = await a.wait_for(
            "progress", lambda e: e.player == b.player and e.n == len(played_b), timeout=DEADLINE
        )
        assert ev.total == rules.GAMES[GAME].total
        assert a.versions[snap.race] == b.versions[snap.race]

        await a.finish(snap.race)
        await b.finish(snap.race)
        ends = [await c.wait_for(m.End, lambda e: e.race == snap.race, timeout=DEADLINE) for c in (a, b)]
        assert ends[0].seed == ends[1].seed
        assert hashlib.sha256(ends[0].seed.encode()).hexdigest() == snap.commitment
        assert {r.player for r in ends[0].ranking} == {a.player, b.player}

        replay = await a.replay(snap.race)
        for p in replay.players:
            g = rules.replay(replay.game, replay.seed, [mv for mv, _at in p.moves])
            who = a if p.player == a.player else b
            assert g.view_text() == who.board(snap.race).view_text
        assert [mv for mv, _ in next(p for p in replay.players if p.player == a.player).moves] == played_a

        # Nothing above needed a resync for a version gap.
        for c in (a, b):
            assert c.versions[snap.race] >= ends[0].ver


async def test_token_resumes_identity_on_another_process(make_server) -> None:
    one = await make_server()
    two = await make_server()
    async with client.connect(one.ws_url, name="ada") as c:
        snap = await c.create(GAME, seats=1)
        await c.ready(snap.race)
        await c.wait_for(m.Started, timeout=DEADLINE)
        await c.move(snap.race, "draw")
        token, player, view = c.token, c.player, c.board(snap.race).view_text
    async with client.connect(two.ws_url, token=token) as again:
        assert again.player == player and again.welcome is not None
        assert snap.race in again.welcome.races
        state = await again.resync(snap.race)
        assert state.you is not None and state.you.n == 1
        assert again.board(snap.race).view_text == view
        ack = await again.move(snap.race, "draw")
        assert ack.n == 2


async def test_errors_are_typed(ws_url: str) -> None:
    async with client.connect(ws_url) as c:
        with pytest.raises(client.ServerError) as info:
            await c.join("no-such-race-id")
        assert info.value.code == m.ErrorCode.NO_SUCH_RACE
        with pytest.raises(client.ServerError) as info:
            await c.create("no-such-game")
        assert info.value.code == m.ErrorCode.UNKNOWN_GAME
        snap = await c.create(GAME, seats=1)
        with pytest.raises(client.ServerError) as info:
            await c.move(snap.race, "draw")
        assert info.value.code == m.ErrorCode.RACE_NOT_RUNNING
        await c.ready(snap.race)
        await c.wait_for(m.Started, timeout=DEADLINE)
        with pytest.raises(client.IllegalMoveError) as info2:
            await c.move(snap.race, "w>f0")
        assert info2.value.reason == "not-available"
        pong = await c.ping()
        assert pong.time > 0 and c.clock_offset_ms is not None


async def test_private_race_invites_through_the_library(server):
    async with (
        client.connect(server.ws_url, name="ada") as ada,
        client.connect(server.ws_url, name="bob") as bob,
        client.connect(server.ws_url, name="eve") as eve,
    ):
        snap = await ada.create(GAME, seats=2, private=True)
        assert snap.private and snap.invite and ada.invites[snap.race] == snap.invite
        with pytest.raises(client.ServerError) as refused:
            await bob.join(snap.race)
        assert refused.value.code == "private-race"
        joined = await bob.join(snap.race, invite=snap.invite)
        assert joined.invite == snap.invite
        # A watcher given the invite once keeps it for later requests (a resync, a reconnect).
        watched = await eve.spectate(snap.race, invite=snap.invite)
        assert watched.invite is None
        state = await eve.resync(snap.race, since=0)
        assert state.race.race == snap.race and state.race.invite is None
