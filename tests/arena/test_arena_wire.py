"""Arenas through the protocol against a real server (fixtures from tests/conftest.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from waiting import DEADLINE, until

import client
from client.bots.arena import run_arena_bots
from client.bots.strategies import make
from protocol import messages as m

pytestmark = pytest.mark.timeout(120)

ARENA: dict[str, Any] = {
    "arena_create": 1,
    "arena_schedule": "off",
    "arena_tick_ms": 200,
    "arena_update_ms": 200,
}


async def test_requests_and_their_errors(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="ann") as c:
        with pytest.raises(client.ServerError) as e:
            await c.request(m.ArenaJoin(arena="nope"))
        assert e.value.code == "no-arena"
        with pytest.raises(client.ServerError) as e:
            await c.request(m.ArenaCreate(arena="x", game="no-such-game", duration_ms=60_000))
        assert e.value.code == "unknown-game"
        made: m.ArenaData = await c.request(
            m.ArenaCreate(
                arena="soon", game="fours-up", duration_ms=60_000, starts=app.service.now_ms() + 60_000
            )
        )
        assert made.arena.status == "upcoming" and not made.joined
        with pytest.raises(client.ServerError) as e:
            await c.request(m.ArenaCreate(arena="soon", game="fours-up", duration_ms=60_000))
        assert e.value.code == "bad-arena"
        joined: m.ArenaData = await c.request(m.ArenaJoin(arena="soon"))
        assert joined.joined and joined.arena.players == 1 and joined.race is None
        board: m.ArenaStandingsData = await c.request(m.ArenaStandings(arena="soon"))
        assert board.count == 1 and board.me is not None and board.me.player == c.player
        out: m.ArenaData = await c.request(m.ArenaWithdraw(arena="soon"))
        assert not out.joined


async def test_arena_create_is_off_by_default(make_server) -> None:
    app = await make_server(arena_schedule="off")
    async with client.connect(app.ws_url, name="ann") as c:
        with pytest.raises(client.ServerError) as e:
            await c.request(m.ArenaCreate(arena="x", game="fours-up", duration_ms=60_000))
        assert e.value.code == "bad-arena"


async def test_the_default_schedule_lists_arenas(make_server) -> None:
    app = await make_server(arena_tick_ms=100)
    async with client.connect(app.ws_url, name="ann") as c:

        async def listed() -> list[m.ArenaSummary]:
            got: m.ArenaListData = await c.request(m.Arenas())
            return got.arenas

        arenas = await until(listed)
        assert all(a.id.startswith(("hourly-", "daily-")) for a in arenas)


async def test_bots_play_an_arena(make_server) -> None:
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="host") as c:
        await c.request(m.ArenaCreate(arena="short", game="racing-aces", duration_ms=10_000, time_limit_s=30))
        watched_at = time.monotonic()  # no update can be sent before the watch
        watch: m.ArenaStandingsData = await c.request(m.ArenaStandings(arena="short", watch=True))
        assert watch.status == "running"
        arrivals: list[float] = []
        updates: list[m.ArenaUpdate] = []

        async def note_updates() -> None:
            while True:
                updates.append(await c.wait_for(m.ArenaUpdate, timeout=None))
                arrivals.append(time.monotonic())

        noting = asyncio.create_task(note_updates())
        races: list[str] = []
        bots = await run_arena_bots(
            app.ws_url, "short", [make("greedy") for _ in range(4)], on_race=races.append
        )
        played = sum(len(b.races) for b in bots)
        # the live standings come to count every race played
        await until(lambda: any(u.count == 4 and sum(r.races for r in u.top) == played for u in updates))
        noting.cancel()
        # coalesced: at most one update of the arena per ARENA_UPDATE (200 ms) pass, however
        # many races ended meanwhile. The server sends them at least that far apart from the
        # watch on; the last one arrived after it was sent, so over the time from the watch to
        # its arrival there were at most that time / ARENA_UPDATE + 1 (one more: slack). Counted,
        # not timed between arrivals: a stall here delivers several at once, without more of them.
        assert len(arrivals) >= 2
        period = ARENA["arena_update_ms"] / 1000
        assert len(arrivals) <= (arrivals[-1] - watched_at) / period + 2, (watched_at, arrivals)
        assert all(b.races for b in bots)
        assert all(races.count(r) == 2 for r in races)  # each race: two of the bots


async def test_a_watcher_gets_an_update_when_something_changed_only(make_server) -> None:
    """An upcoming arena with nothing happening sends no update pass after pass; its start is
    sent (it was sent only if a pass before the start happened to go out last)."""
    app = await make_server(**ARENA)
    async with client.connect(app.ws_url, name="host") as c:
        starts = app.service.now_ms() + 1500
        await c.request(
            m.ArenaCreate(
                arena="soon", game="racing-aces", starts=starts, duration_ms=60_000, time_limit_s=30
            )
        )
        watch: m.ArenaStandingsData = await c.request(m.ArenaStandings(arena="soon", watch=True))
        assert watch.status == "upcoming"
        statuses: list[str] = []

        def note(u: m.ArenaUpdate) -> bool:
            statuses.append(u.status)
            return u.status == "running"

        running = await c.wait_for(m.ArenaUpdate, note, timeout=DEADLINE)
        assert running.count == 0
        # Some 7 passes of ARENA_UPDATE before the start: one sent at most (the first pass after
        # the arena's first watch sends what it has), then none, since nothing changed.
        assert statuses in (["running"], ["upcoming", "running"]), statuses


@pytest.mark.parametrize(
    "starts",
    [2**64 - 1, 2**63 - 1, "a week and a minute ahead", "a day and a minute ago"],
)
async def test_a_start_out_of_range_is_refused_and_stores_nothing(make_server, starts) -> None:
    # Taken once: the end overflowed the reply after the arena was stored, or a join's expiry
    # overflowed Redis's after the join's first writes ("internal", yet joined).
    app = await make_server(**ARENA)
    now, day = app.service.now_ms(), 86_400_000
    at = {"a week and a minute ahead": now + 7 * day + 60_000, "a day and a minute ago": now - day - 60_000}
    async with client.connect(app.ws_url, name="ann") as c:
        with pytest.raises(client.ServerError) as e:
            await c.request(
                m.ArenaCreate(arena="far", game="fours-up", duration_ms=60_000, starts=at.get(starts, starts))
            )
        assert e.value.code == "bad-arena"
        with pytest.raises(client.ServerError) as e:
            await c.arena("far")
        assert e.value.code == "no-arena"
