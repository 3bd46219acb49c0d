"""The arena list is bounded (docs/protocol.md §5a `arenas`): at most LISTED_PER_STATUS arenas
of each status, the soonest to start, the latest started, the latest ended, and `more` when
the reply left some out; the started arenas read for it are bounded too (LISTED_READS)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import pytest
from arena_wire import SERVER

import client
from protocol import messages as m
from server.arena.schedule import HOUR_MS, LISTED_PER_STATUS, LISTED_READS
from server.handlers import arena as handlers

pytestmark = pytest.mark.timeout(120)

MINUTE = 60_000


async def create(c: client.Client, specs: Iterable[tuple[str, int, int]]) -> None:
    """Create the arenas (id, starts, duration), 50 requests in flight at a time."""
    todo = list(specs)
    for i in range(0, len(todo), 50):
        await asyncio.gather(
            *(
                c.request(m.ArenaCreate(arena=a, game="racing-aces", starts=s, duration_ms=d))
                for a, s, d in todo[i : i + 50]
            )
        )


def by_status(got: m.ArenaListData) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {"upcoming": set(), "running": set(), "over": set()}
    for a in got.arenas:
        out[a.status].add(a.id)
    return out


async def test_many_arenas_are_listed_up_to_the_bound_of_each_status(make_server) -> None:
    app = await make_server(**SERVER)
    now = app.service.now_ms()
    extra = 5
    n = LISTED_PER_STATUS + extra
    async with client.connect(app.ws_url, name="ann") as c:
        # numbered soonest start / latest start / latest end first: the first N of each are kept
        await create(c, [(f"u{i}", now + 10 * MINUTE + i * 1000, MINUTE) for i in range(n)])
        await create(c, [(f"r{i}", now - 10 * MINUTE - i * 1000, 2 * HOUR_MS) for i in range(n)])
        await create(c, [(f"o{i}", now - 20 * HOUR_MS - i * 1000, MINUTE) for i in range(n)])
        got: m.ArenaListData = await c.request(m.Arenas())
    listed = by_status(got)
    assert listed["upcoming"] == {f"u{i}" for i in range(LISTED_PER_STATUS)}
    assert listed["running"] == {f"r{i}" for i in range(LISTED_PER_STATUS)}
    assert listed["over"] == {f"o{i}" for i in range(LISTED_PER_STATUS)}
    assert got.more
    assert [a.starts for a in got.arenas] == sorted(a.starts for a in got.arenas)
    # a few hundred bytes an arena at most: far within what a client may hold in the server
    assert len(m.encode(got)) < 3 * LISTED_PER_STATUS * 300


async def test_a_list_within_the_bounds_is_whole_and_says_nothing_more(make_server) -> None:
    app = await make_server(**SERVER)
    now = app.service.now_ms()
    async with client.connect(app.ws_url, name="ann") as c:
        await create(
            c,
            [
                ("soon", now + 10 * MINUTE, MINUTE),
                ("later", now + 2 * HOUR_MS, MINUTE),  # starts beyond the hour: not listed
                ("on", now - MINUTE, HOUR_MS),
                ("long", now - 23 * HOUR_MS, 24 * HOUR_MS - MINUTE),  # ends in 23 h 59
                ("done", now - 23 * HOUR_MS, MINUTE),
            ],
        )
        got: m.ArenaListData = await c.request(m.Arenas())
        assert by_status(got) == {"upcoming": {"soon"}, "running": {"on", "long"}, "over": {"done"}}
        assert not got.more
        played = {a.id: a.players for a in got.arenas}
        await c.request(m.ArenaJoin(arena="on"))
        got = await c.request(m.Arenas())
        assert {a.id: a.players for a in got.arenas} == {**played, "on": 1}
        # 12 hours later: "done" ended more than a day ago, the others within it
        app.service.offset_ms += 12 * HOUR_MS
        got = await c.request(m.Arenas())
        assert by_status(got) == {
            "upcoming": set(),
            "running": set(),
            "over": {"soon", "later", "on", "long"},
        }
        assert not got.more


async def test_the_started_arenas_read_are_bounded(make_server, monkeypatch) -> None:
    monkeypatch.setattr(handlers, "LISTED_READS", 4)
    app = await make_server(**SERVER)
    now = app.service.now_ms()
    async with client.connect(app.ws_url, name="ann") as c:
        await create(c, [(f"r{i}", now - MINUTE - i * 1000, HOUR_MS) for i in range(5)])
        got: m.ArenaListData = await c.request(m.Arenas())
    # the 4 latest started are read and listed; the fifth was not read: the reply says so
    assert by_status(got)["running"] == {f"r{i}" for i in range(4)}
    assert got.more
    assert LISTED_READS >= 2 * LISTED_PER_STATUS


async def test_the_schedules_arenas_count_towards_the_upcoming_bound(make_server, monkeypatch) -> None:
    monkeypatch.setattr(handlers, "LISTED_PER_STATUS", 2)
    app = await make_server(**{**SERVER, "arena_schedule": ""})  # the default schedule
    async with client.connect(app.ws_url, name="ann") as c:
        got: m.ArenaListData = await c.request(m.Arenas())
    upcoming = [a for a in got.arenas if a.status == "upcoming"]
    assert len(upcoming) == 2 and got.more
    # the soonest: arenas of the next whole hour (the schedule's, listed ahead of creation)
    assert all(a.starts % HOUR_MS == 0 and a.starts - got.now <= HOUR_MS for a in upcoming)
