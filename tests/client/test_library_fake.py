"""The client library against the in-process fake server (tests/fake_server.py).

Covers what the real server cannot easily be made to do on cue: a connection
dropped after a move is applied but before its ack, a withheld event (version
gap), a restart close (1012).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import msgspec
import pytest
from fake_server import FakeServer, wait_until
from waiting import DEADLINE

import client
from client.library import ConnectionLost, Reconnected, tracking
from protocol import messages as m

pytestmark = pytest.mark.timeout(30)


async def _solo_race(c: client.Client, game: str = "racing-aces") -> str:
    snap = await c.create(game, seats=1)
    await c.ready(snap.race)
    start = await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
    assert isinstance(start, m.Started)
    return snap.race


@pytest.mark.parametrize("game", ["racing-aces", "rouge-et-noir", "fours-up", "double-aces-and-kings"])
async def test_board_tracks_the_server_through_a_game(game: str) -> None:
    async with FakeServer() as fake, client.connect(fake.url, name="ada") as c:
        assert c.player and c.token and c.name == "ada"
        race = await _solo_race(c, game)
        seat = fake.races[race].players[c.player]
        board = c.board(race)
        assert board.view_text == seat.dealt().view_text() and board.n == 0
        rng = random.Random(game)
        for i in range(60):
            legal = seat.dealt().legal_moves()
            if not legal:  # a stuck deal (the fake deals a random seed: about 1 in 250 Rouge et Noir)
                break
            plays = [mv for mv in legal if mv != "draw"]
            mv = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
            ack = await c.move(race, mv, view=(i % 10 == 0))
            assert ack.n == i + 1 and board.n == i + 1
            assert board.view_text == seat.dealt().view_text()
        assert not any(isinstance(f, m.Resync) for f in fake.frames_in)  # never needed one


async def test_illegal_move_and_out_of_sync() -> None:
    async with FakeServer() as fake, client.connect(fake.url) as c:
        race = await _solo_race(c)
        assert c.player is not None
        before = c.board(race).view_text
        with pytest.raises(client.IllegalMoveError) as info:
            await c.move(race, "w>f0")
        assert info.value.code == "illegal-move" and info.value.reason == "not-available"
        assert c.board(race).view_text == before and c.board(race).n == 0
        await c.move(race, "draw")
        c.board(race).n = 5  # pretend we are confused
        with pytest.raises(client.ServerError) as info2:
            await c.move(race, "draw")
        assert info2.value.code == "out-of-sync" and info2.value.n == 1
        await wait_until(lambda: c.board(race).n == 1)  # the state that follows fixes the board
        await c.move(race, "draw")
        assert c.board(race).view_text == fake.races[race].players[c.player].dealt().view_text()


async def test_a_state_older_than_the_board_is_not_adopted() -> None:
    # The state pushed after an out-of-sync error may arrive behind the ack of
    # the next move; adopting it would roll the board back one move.
    async with FakeServer() as fake, client.connect(fake.url) as c:
        race = await _solo_race(c)
        old_view = c.board(race).view_text
        assert old_view is not None and c.player is not None
        await c.move(race, "draw")
        seat = fake.races[race].players[c.player]
        late = m.State(
            race=fake.races[race].snapshot(),
            you=m.You(n=0, view=old_view, legal=[], home=0, status="playing"),
        )
        c._dispatch(late)
        assert c.board(race).n == 1 and c.board(race).view_text == seat.dealt().view_text()
        await c.move(race, "draw")
        assert c.board(race).view_text == seat.dealt().view_text()


@contextlib.asynccontextmanager
async def two_players() -> AsyncIterator[tuple[FakeServer, client.Client, client.Client]]:
    """A fake server, and players `a` and `b` connected to it."""
    async with (
        FakeServer() as fake,
        client.connect(fake.url, name="a") as a,
        client.connect(fake.url, name="b") as b,
    ):
        yield fake, a, b


async def started_race(a: client.Client, b: client.Client) -> m.RaceSnapshot:
    """A Fours Up race of two seats that `a` creates and `b` joins, both ready, started for
    both: its snapshot at the creation."""
    snap = await a.create("fours-up", seats=2)
    await b.join(snap.race)
    await a.ready(snap.race)
    await b.ready(snap.race)
    for c in (a, b):
        await c.wait_for(m.Started, timeout=DEADLINE)
    return snap


async def test_two_players_progress_versions_and_gap_resync() -> None:
    async with two_players() as (fake, a, b):
        snap = await started_race(a, b)
        await a.move(snap.race, "draw")
        ev = await b.wait_for("progress", lambda e: e.player == a.player, timeout=DEADLINE)
        assert ev.n == 1
        assert a.versions[snap.race] == b.versions[snap.race] == fake.races[snap.race].ver
        assert not any(isinstance(f, m.Resync) for f in fake.frames_in)
        # A withheld event: b sees a jump of two and resyncs, and gets it back.
        seen = b.versions[snap.race]
        fake.withhold_next_progress = True
        await a.move(snap.race, "draw")
        await a.move(snap.race, "draw")
        missed = await b.wait_for("progress", lambda e: e.n == 2, timeout=DEADLINE)
        assert missed.player == a.player
        await b.wait_for("progress", lambda e: e.n == 3, timeout=DEADLINE)
        assert any(isinstance(f, m.Resync) and f.since == seen for f in fake.frames_in)
        await wait_until(lambda: b.versions[snap.race] == fake.races[snap.race].ver)
        ok = await a.finish(snap.race)
        assert ok.ver == fake.races[snap.race].ver == a.versions[snap.race]
        await b.wait_for("progress", lambda e: e.status == "finished", timeout=DEADLINE)
        assert b.races_seen[snap.race].players[0].status == "finished"


async def test_a_snapshot_older_than_the_one_on_hand_gives_only_its_invite() -> None:
    # Replies are not ordered with the race's events (docs/protocol.md §1): a's create
    # reply, handed in after the event of b's join, would unseat b in what a has seen.
    async with two_players() as (fake, a, b):
        created = await a.create("fours-up", seats=2)
        joined = await b.join(created.race)
        await wait_until(
            lambda: created.race in a.races_seen and a.races_seen[created.race].ver == joined.ver
        )
        late = msgspec.structs.replace(created, rid=9001, invite="k3y")
        a._pending[9001] = asyncio.get_running_loop().create_future()
        a._dispatch(late)
        seen = a.races_seen[created.race]
        assert seen.ver == joined.ver and {p.player for p in seen.players} == {a.player, b.player}
        assert a.invites[created.race] == "k3y"
        # A resync's state is the truth, whatever its version.
        a._dispatch(m.State(race=late, you=None))
        assert a.races_seen[created.race] is late

        # An event older than the snapshot on hand is already in it: it changes nothing.
        await a.ready(created.race)
        await b.ready(created.race)
        await b.wait_for(m.Started, timeout=DEADLINE)
        last = b.versions[created.race]
        now = fake.races[created.race].snapshot()
        ahead = msgspec.structs.replace(
            now,
            rid=9002,
            ver=last + 2,
            players=[msgspec.structs.replace(p, n=2 if p.player == a.player else p.n) for p in now.players],
        )
        b._pending[9002] = asyncio.get_running_loop().create_future()
        b._dispatch(ahead)
        assert a.player is not None
        b._dispatch(
            m.Progress(
                race=created.race,
                ver=last + 1,
                player=a.player,
                n=1,
                home=0,
                total=52,
                status="playing",
                at=1,
            )
        )
        assert [p.n for p in b.races_seen[created.race].players if p.player == a.player] == [2]


async def test_a_states_events_after_its_snapshot_are_kept() -> None:
    # A state's version is its last event's when that is later than its snapshot's
    # (docs/protocol.md §1): those events are newer than the snapshot and must stay applied.
    async with two_players() as (fake, a, b):
        snap = await started_race(a, b)
        assert a.player is not None
        now = fake.races[snap.race].snapshot()
        later = m.Progress(
            race=snap.race,
            ver=now.ver + 1,
            player=a.player,
            n=1,
            home=0,
            total=now.total,
            status="playing",
            at=1,
        )
        b._dispatch(m.State(race=now, events=[later]))
        assert [p.n for p in b.races_seen[snap.race].players if p.player == a.player] == [1]
        assert b.versions[snap.race] == now.ver + 1
        # a race event past the snapshot is the newer snapshot
        newer = msgspec.structs.replace(now, ver=now.ver + 2, time_limit_s=123)
        b._dispatch(m.State(race=now, events=[later, newer]))
        assert b.races_seen[snap.race].time_limit_s == 123


async def test_a_gap_the_own_ack_fills_is_not_resynced(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rival's progress can overtake the ack of the player's own move (the server writes them
    from two connections): the version between looks missing for a moment. That gap was resynced
    at once, a message credit spent for nothing; two fast bots in one race spent so many that the
    resyncs themselves were rate-limited ("automatic resync ... failed", dozens a race)."""
    monkeypatch.setattr(tracking, "GAP_GRACE_MS", 60_000, raising=False)  # the ack comes far sooner
    async with two_players() as (fake, a, b):
        snap = await started_race(a, b)
        assert a.player is not None
        fake.hold_acks_of = a.player
        moving = asyncio.ensure_future(a.move(snap.race, "draw"))
        await wait_until(lambda: fake.races[snap.race].players[str(a.player)].n == 1)
        await b.move(snap.race, "draw")  # its progress reaches a before a's own ack
        await a.wait_for("progress", lambda e: e.player == b.player, timeout=DEADLINE)
        fake.acks_released.set()
        await moving
        assert a.versions[snap.race] == fake.races[snap.race].ver
        assert not a._missing.get(snap.race)
        assert not any(isinstance(f, m.Resync) for f in fake.frames_in)


async def test_reconnect_resends_an_unacknowledged_move_once() -> None:
    async with FakeServer() as fake, client.connect(fake.url, name="ada", reconnect=True) as c:
        race = await _solo_race(c)
        player = c.player
        assert player is not None
        fake.drop_before_ack = 1  # applied on the server, then the socket dies before the ack
        ack = await c.move(race, "draw")
        assert ack.dup and ack.n == 1
        seat = fake.races[race].players[player]
        assert seat.n == 1  # applied once
        assert c.player == player
        assert c.board(race).n == 1 and c.board(race).view_text == seat.dealt().view_text()
        lost = await c.wait_for(ConnectionLost, timeout=DEADLINE)
        assert lost.code == m.CloseCode.RESTART
        await c.wait_for(Reconnected, timeout=DEADLINE)
        await c.move(race, "draw")
        assert seat.n == 2 and c.board(race).view_text == seat.dealt().view_text()


async def test_reconnect_after_restart_resyncs() -> None:
    async with FakeServer() as fake, client.connect(fake.url, reconnect=True) as c:
        race = await _solo_race(c)
        await c.move(race, "draw")
        await fake.kick_all()
        await c.wait_for(Reconnected, timeout=DEADLINE)
        assert any(isinstance(f, m.Resync) and f.race == race and f.since is not None for f in fake.frames_in)
        ack = await c.move(race, "draw")
        assert ack.n == 2 and not ack.dup


async def test_without_reconnect_requests_fail_with_disconnected() -> None:
    async with FakeServer() as fake, client.connect(fake.url) as c:
        await _solo_race(c)
        await fake.kick_all()
        await c.wait_for(ConnectionLost, timeout=DEADLINE)
        with pytest.raises(client.Disconnected):
            await c.ping()
        with pytest.raises(client.Disconnected):
            await c.wait_for("progress", timeout=1)
        assert c.closed
        assert [ev async for ev in c.events()] == []


@pytest.mark.parametrize("what", ["player", "token", "name", "welcome"])
async def test_the_identity_before_any_welcome_is_a_clear_error(what: str) -> None:
    # Given a name and a token but never welcomed (not opened, then refused): the
    # server has not said who this client is.
    c = client.connect("ws://127.0.0.1:1/ws", name="ada", token="nope")
    with pytest.raises(client.NotConnected, match=f"{what} is known once it has connected"):
        getattr(c, what)
    async with FakeServer() as fake:
        c = client.connect(fake.url, name="ada", token="nope")
        with pytest.raises(client.ServerError):
            await c.open()
        with pytest.raises(client.NotConnected):
            getattr(c, what)
        async with client.connect(fake.url, name="ada") as c:
            pass
        assert getattr(c, what)  # the last welcome's, after the close too


async def test_bad_token_ping_and_wait_for_keeps_other_events() -> None:
    async with FakeServer() as fake:
        with pytest.raises(client.ServerError) as info:
            async with client.connect(fake.url, token="nope"):
                pass
        assert info.value.code == "bad-token"
        async with client.connect(fake.url, name="ada") as c:
            pong = await c.ping()
            assert pong.time == 1_700_000_000_000 and c.clock_offset_ms is not None
            async with client.connect(fake.url, token=c.token) as again:
                assert again.player == c.player
            snap = await c.create("racing-aces", seats=2)
            async with client.connect(fake.url, name="bob") as b:
                await b.join(snap.race)
                await b.ready(snap.race)
            # Two lobby snapshots are buffered; taking the second leaves the first.
            second = await c.wait_for("race", lambda ev: ev.ver == 3, timeout=DEADLINE)
            first = await c.next_event(timeout=1)
            assert isinstance(first, m.RaceSnapshot)
            assert (first.ver, second.ver) == (2, 3)
            with pytest.raises(TimeoutError):
                await c.wait_for("end", timeout=0.05)


async def test_await_connect_and_concurrent_moves_are_serialized() -> None:
    async with FakeServer() as fake:
        c = await client.connect(fake.url)
        try:
            race = await _solo_race(c)
            acks = await asyncio.gather(*(c.move(race, "draw") for _ in range(5)))
            assert [a.n for a in acks] == [1, 2, 3, 4, 5]
        finally:
            await c.close()


async def test_a_move_that_never_got_a_connection_leaves_nothing_pending() -> None:
    # Waiting for the connection to come back, the move times out before it is sent: its reply
    # slot must go with it (left behind, the next drop failed it, and nobody read that error).
    async with FakeServer() as fake, client.connect(fake.url, reconnect=True) as c:
        race = await _solo_race(c)
        c._connected.clear()  # as between a drop and the reconnection
        c.timeout = 0.05
        with pytest.raises(TimeoutError):
            await c.move(race, "draw")
        assert c._pending == {}
        c._connected.set()
