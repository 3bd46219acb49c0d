"""A request whose connection drops after it was sent, before its reply came, fails at once
with `ReplyLost` (a `Disconnected`): the server may have acted on it. A move is resent once
reconnected and its call returns the ack then (as bots rely on, docs/bots.md), unless sent
with `resend=False`: then it fails at once too, and is not resent. Such a move waited out
the request's timeout (10 s by default) during the drop, then raised `TimeoutError`.

Against the library's fake server (tests/fake_server.py), which holds the player's acks (the
move is applied on the server, its ack not sent) while it stops, and comes back on the same
port with its state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import pytest
import websockets
from fake_server import FakeServer
from waiting import DEADLINE, until

import client
from client.library import ConnectionLost, Reconnected, ReplyLost
from protocol import messages as m

pytestmark = pytest.mark.timeout(90)

#: Longer than any wait of these tests: a move or request failing by its timeout never
#: passes for one failed by the drop.
NEVER = 10 * DEADLINE


@asynccontextmanager
async def held_race() -> AsyncIterator[tuple[FakeServer, client.Client, str]]:
    """(fake server, ada's client with reconnect, her running race of one seat); the server's
    acks of ada's moves held until it stops."""
    async with FakeServer() as fake:
        async with client.connect(fake.url, name="ada", reconnect=True, timeout=NEVER) as c:
            snap = await c.create("racing-aces", seats=1)
            await c.ready(snap.race)
            await c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE)
            fake.hold_acks_of = c.player
            try:
                yield fake, c, snap.race
            finally:
                fake.acks_released.set()  # the held handler ends: the server can close


async def stop(fake: FakeServer) -> None:
    """The fake server stops listening and closes its connections (1001)."""
    fake._server.close()


async def restart(fake: FakeServer) -> None:
    """The fake server back on its port, with its races and sessions."""
    fake.acks_released.set()
    await fake._server.wait_closed()
    port = urlsplit(fake.url).port
    fake._server = await websockets.serve(fake.handle, "127.0.0.1", port, compression=None)


def moves_sent(fake: FakeServer) -> list[m.Move]:
    return [f for f in fake.frames_in if isinstance(f, m.Move)]


async def test_a_move_without_resend_fails_at_once_and_is_not_resent() -> None:
    async with held_race() as (fake, c, race):
        seat = fake.races[race].players[c.player]
        moving = asyncio.ensure_future(c.move(race, "draw", resend=False))
        await until(lambda: seat.n == 1, what="the move applied on the server")  # its ack held
        await stop(fake)
        with pytest.raises(ReplyLost):
            await asyncio.wait_for(moving, DEADLINE)
        await c.wait_for(ConnectionLost, timeout=DEADLINE)

        await restart(fake)
        await c.wait_for(Reconnected, timeout=DEADLINE)
        assert len(moves_sent(fake)) == 1  # not resent
        assert c.board(race).n == 1  # the board resynced: the move was played
        assert c.board(race).view_text == seat.dealt().view_text()


async def test_other_requests_fail_at_once_and_a_move_is_still_resent() -> None:
    async with held_race() as (fake, c, race):
        seat = fake.races[race].players[c.player]
        moving = asyncio.ensure_future(c.move(race, "draw"))
        await until(lambda: seat.n == 1, what="the move applied on the server")
        # Sent behind the held move: the server reads it only once the move is answered.
        pinging = asyncio.ensure_future(c.ping())
        await until(lambda: c._pending and len(c._pending) == 2, what="the ping sent")
        await stop(fake)
        with pytest.raises(ReplyLost) as lost:
            await asyncio.wait_for(pinging, DEADLINE)
        assert isinstance(lost.value, client.Disconnected)  # as before, for who catches that
        assert not moving.done()

        await restart(fake)
        ack = await asyncio.wait_for(moving, DEADLINE)  # resent once reconnected: applied once
        assert ack.dup and ack.n == 1 and seat.n == 1
        assert len(moves_sent(fake)) == 2
