"""The arena list shows the scheduled arenas of the next day before the servers create them
(docs/protocol.md §5a `arenas`): status upcoming, no players, bounded, never twice; asking
for or joining one creates it."""

from __future__ import annotations

import time

import pytest

import client
from protocol import messages as m
from protocol.rules import GAMES
from server.arena.schedule import (
    DAY_MS,
    HOUR_MS,
    UPCOMING_PER_RULE,
    arenas_between,
    default_schedule,
    upcoming,
)

pytestmark = pytest.mark.timeout(60)

# The loop never ticks by itself here: the test creates the scheduled arenas when it says so.
SERVER = {"arena_tick_ms": 3_600_000}


def at_1830() -> int:
    """18:30 UTC of a day to come (ms)."""
    day = (int(time.time() * 1000) // DAY_MS + 2) * DAY_MS
    return day + 18 * HOUR_MS + 30 * 60_000


def set_clock(app, when: int) -> None:
    """The server's clock (its store's too) at ``when``."""
    app.service.offset_ms = when - int(time.time() * 1000)


def handlers(app):
    return app.service.handlers[m.Arenas].__self__


async def listed(c) -> list[m.ArenaSummary]:
    got: m.ArenaListData = await c.request(m.Arenas())
    return got.arenas


def daily_of(arenas: list[m.ArenaSummary]) -> list[m.ArenaSummary]:
    return [a for a in arenas if a.id.startswith("daily-")]


async def test_the_daily_arena_is_listed_before_it_is_created(make_server) -> None:
    app = await make_server(**SERVER)
    now = at_1830()
    set_clock(app, now)
    h = handlers(app)
    await h.store.ensure_scheduled(h.loop.schedule, now, now + HOUR_MS)  # what the loop does
    async with client.connect(app.ws_url, name="ann") as c:
        arenas = await listed(c)
        (daily,) = daily_of(arenas)
        start = now + 90 * 60_000  # 20:00 UTC
        assert daily.starts == start and daily.ends == start + HOUR_MS
        assert daily.status == "upcoming" and daily.players == 0 and not daily.final
        assert daily.id == f"daily-{daily.game}-{start // 60_000}"
        assert await h.store.get(daily.id) is None  # not created yet
        ids = [a.id for a in arenas]
        assert len(ids) == len(set(ids))
        assert [a.starts for a in arenas] == sorted(a.starts for a in arenas)

        # at 19:00:30 the loop has created it: listed once, as the store has it
        later = start - HOUR_MS + 30_000
        set_clock(app, later)
        await h.store.ensure_scheduled(h.loop.schedule, later, later + HOUR_MS)
        await c.request(m.ArenaJoin(arena=daily.id))
        arenas = await listed(c)
        (again,) = daily_of(arenas)
        assert again.id == daily.id and again.players == 1 and again.status == "upcoming"
        ids = [a.id for a in arenas]
        assert len(ids) == len(set(ids))


async def test_the_list_is_bounded(make_server) -> None:
    app = await make_server(**SERVER)
    now = at_1830()
    set_clock(app, now)
    async with client.connect(app.ws_url, name="ann") as c:
        arenas = await listed(c)
    ahead = [a for a in arenas if a.starts > now]
    # the default schedule: an hourly rule of every game, a daily rule of one game a day
    assert len(ahead) <= UPCOMING_PER_RULE * (len(GAMES) + 1)
    for g in GAMES:
        assert len([a for a in ahead if a.game == g and a.id.startswith("hourly-")]) <= UPCOMING_PER_RULE
    assert all(a.starts < now + DAY_MS for a in arenas)
    assert len(daily_of(arenas)) == 1
    # the pure helper keeps the soonest of each rule and game
    sched = default_schedule(list(GAMES))
    kept = upcoming(sched, now, now + DAY_MS, 1)
    every = [a for a in arenas_between(sched, now, now + DAY_MS) if a.starts >= now]
    assert len(every) > len(kept) == len(GAMES) + 1
    assert {a.id for a in kept} == {
        min((a for a in every if a.game == g and a.id.startswith(k)), key=lambda a: a.starts).id
        for g, k in {(a.game, a.id.split("-")[0]) for a in every}
    }


async def test_a_listed_arena_not_created_yet_can_be_opened_and_joined(make_server) -> None:
    app = await make_server(**SERVER)
    now = at_1830()
    set_clock(app, now)
    async with client.connect(app.ws_url, name="ann") as c:
        (daily,) = daily_of(await listed(c))
        got: m.ArenaData = await c.request(m.ArenaGet(arena=daily.id))
        assert got.arena.id == daily.id and got.arena.status == "upcoming" and not got.joined
        joined: m.ArenaData = await c.request(m.ArenaJoin(arena=daily.id))
        assert joined.joined and joined.arena.players == 1
        far = f"daily-{daily.game}-{(daily.starts + 2 * DAY_MS) // 60_000}"  # not within the day
        with pytest.raises(client.ServerError) as e:
            await c.request(m.ArenaJoin(arena=far))
        assert e.value.code == "no-arena"
        (again,) = daily_of(await listed(c))
        assert again.players == 1


async def test_a_client_cannot_take_a_scheduled_arenas_id_before_the_servers_create_it(make_server) -> None:
    app = await make_server(**SERVER, arena_create=1)
    now = at_1830()
    set_clock(app, now)
    h = handlers(app)
    async with client.connect(app.ws_url, name="ann") as c, client.connect(app.ws_url, name="bob") as b:
        (daily,) = daily_of(await listed(c))
        other = next(g for g in GAMES if g != daily.game)
        taken = [daily.id, f"hourly-{other}-99999999", "daily-mine"]
        for arena_id in taken:
            with pytest.raises(client.ServerError) as e:
                await c.request(m.ArenaCreate(arena=arena_id, game=other, duration_ms=10_000, name="mine"))
            assert e.value.code == "bad-arena"
            assert await h.store.get(arena_id) is None
        got: m.ArenaData = await b.request(m.ArenaGet(arena=daily.id))
        assert got.arena.game == daily.game and got.arena.name == daily.name
        assert got.arena.ends - got.arena.starts == HOUR_MS
        # any other id is the client's to take
        made: m.ArenaData = await c.request(m.ArenaCreate(arena="hourlyish", game=other, duration_ms=10_000))
        assert made.arena.id == "hourlyish"
