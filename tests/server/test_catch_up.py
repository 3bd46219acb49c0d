"""The parts of a reply put in its place among the live events (server/handlers/catch_up.py),
without Redis: the frames a reply slot drops from behind it, and the wait for a room's version.
The whole, on a live server: test_server_event_order.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from protocol import messages as m
from server.core.room import Room
from server.handlers import catch_up
from server.net.conn import Conn


class Recorded(Conn):
    """A connection whose frames are kept in order instead of written."""

    def __init__(self) -> None:
        super().__init__(None, "127.0.0.1", outbound_queue=100)  # type: ignore[arg-type]
        self.written: list[bytes] = []

    def _send(self, frame: bytes) -> None:
        self.written.append(frame)


def progress(race: str, ver: int) -> bytes:
    return m.encode(
        m.Progress(race=race, ver=ver, player="p", n=ver, home=0, total=52, status="playing", at=0)
    )


def test_a_reply_drops_the_events_behind_it_that_it_holds_and_nothing_else() -> None:
    conn = Recorded()
    earlier = conn.later()  # a reply still awaited ahead of this one: what waits behind it stays
    before = progress("r1", 3)
    conn.send(before)
    slot = conn.later()
    held = [progress("r1", 4), progress("r1", 5)]
    kept = [
        progress("r2", 4),  # another race
        m.encode(m.Ok(rid=7, ver=4)),  # a reply
        m.encode(m.Boards(race="r1", at=1, boards=[])),  # no version
        progress("r1", 6),  # newer than the reply
    ]
    for f in [held[0], kept[0], kept[1], held[1], kept[2], kept[3]]:
        conn.send(f)
    later = conn.later()  # a reply behind: its place stays, as do the frames behind it
    after = progress("r1", 2)  # stale too: behind the reply, whatever is between
    conn.send(after)
    reply = m.encode(m.Ok(rid=8))
    catch_up.answer(slot, "r1", 5, reply)
    earlier(m.encode(m.Ok(rid=6)))
    later(m.encode(m.Ok(rid=9)))
    assert conn.written == [m.encode(m.Ok(rid=6)), before, reply, *kept, m.encode(m.Ok(rid=9))]


def arrivals(bus_up: bool = True) -> catch_up.Arrivals:
    connected = asyncio.Event()
    if bus_up:
        connected.set()
    return catch_up.Arrivals(SimpleNamespace(bus=SimpleNamespace(connected=connected)))  # type: ignore[arg-type]


def room(sent: int) -> Room[Any]:
    return Room(
        rid="r1",
        game="fours-up",
        status="running",
        ver=sent,
        seed="s",
        pids=[],
        starts_at=None,
        deadline=None,
        total=52,
        commitment="",
        sent=sent,
    )


async def test_a_reply_waits_until_its_room_forwarded_its_version() -> None:
    waits = arrivals()
    r = room(3)
    assert await waits.caught_up(r, 3)  # there already: no wait
    waiter = asyncio.ensure_future(waits.caught_up(r, 5))
    await asyncio.sleep(0)
    r.sent = 4
    waits.wake(r)
    await asyncio.sleep(0)
    assert not waiter.done()
    r.sent = 6
    waits.wake(r)
    assert await waiter
    assert waits.waiting == {}


async def test_a_reply_goes_after_catch_up_s_when_its_room_stays_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catch_up, "CATCH_UP_S", 0.01)
    waits = arrivals()
    assert not await waits.caught_up(room(3), 4)
    assert waits.waiting == {}


async def test_a_reply_does_not_wait_for_a_bus_that_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its return's gap fill brings the events, however long that takes; the connection's
    next requests would wait behind the reply meanwhile."""
    monkeypatch.setattr(catch_up, "CATCH_UP_S", 3600)
    waits = arrivals(bus_up=False)
    assert not await waits.caught_up(room(3), 4)
    assert waits.waiting == {}
