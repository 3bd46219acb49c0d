"""A process that stores the last game's end (a finish, a winning move) and dies before it ends
the race (handlers/play.py `_end_check`): the race still ends within END_CHECK_MS, by the
timer stored before the move, not at its deadline minutes later (a chaos audit found it
running, everyone finished, until the deadline). The death is played by a process whose
`tick_soon` does nothing; its deadline sweeper stands for any surviving process's."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from held_tick import HeldTick
from test_server_race import WIN, make_race, play
from waiting import until
from wsclient import player

from server.config import Settings
from server.handlers.play import END_CHECK_MS
from server.storage import Store


def _no_tick_soon(server) -> None:
    server.service.tick_soon = lambda rid: None


async def _counting_down_to_the_deadline(server, rid: str) -> bool:
    at = await server.store.scheduled_at(rid)
    return at is not None and at > server.service.now_ms() + 60_000


async def test_a_race_whose_last_player_finished_ends_though_its_process_never_ended_it(server):
    _no_tick_soon(server)
    ada = await player(server.ws_url, "ada")
    rid = (await ada.request("create", game="fours-up", seats=1, time_limit_s=600))["race"]
    assert (await ada.request("ready", race=rid))["t"] == "race"
    await ada.wait(lambda m: m.get("t") == "start" and m["race"] == rid)

    await until(lambda: _counting_down_to_the_deadline(server, rid), what="the deadline's timer")
    t0 = time.monotonic()
    assert (await ada.request("finish", race=rid))["t"] == "ok"
    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    assert end["ranking"][0]["status"] == "finished"
    assert time.monotonic() - t0 < 60  # the deadline is 600 s away; END_CHECK_MS is 2 s

    # followed up (its timer gone): a late finish puts none back (the sweep would redo it all)
    async def followed_up() -> bool:
        return await server.store.scheduled_at(rid) is None

    await until(followed_up, what="the follow-up of the end")
    assert (await ada.request("finish", race=rid))["t"] == "error"
    assert await server.store.scheduled_at(rid) is None
    await ada.close()


async def test_a_race_won_by_its_last_player_ends_though_its_process_never_ended_it(server):
    _no_tick_soon(server)
    server.service.seed_factory = lambda: WIN["seed"]
    ada = await player(server.ws_url, "ada")
    rid = await make_race(server, [ada], WIN["game"], time_limit_s=600)
    await play(ada, rid, WIN["moves"][:-1])
    # the winning move arms the end check before it is stored
    await play(ada, rid, WIN["moves"][-1:], len(WIN["moves"]) - 1)
    at = await server.store.scheduled_at(rid)
    assert at is None or at <= server.service.now_ms() + END_CHECK_MS
    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    assert end["ranking"][0]["status"] == "won"
    await ada.close()


async def test_an_end_check_set_while_another_tick_runs_is_not_raised_to_the_deadline(server, monkeypatch):
    """Another process's tick read the race still running (nothing due) just before the last
    player's finish set the end check; its write of the next timer comes after. Were that write
    the deadline, a finishing process that died would leave the race running until then."""
    _no_tick_soon(server)
    ada = await player(server.ws_url, "ada")
    rid = await make_race(server, [ada], "fours-up", time_limit_s=600)
    store, clock = server.store, server.service.clock
    await until(lambda: _counting_down_to_the_deadline(server, rid), what="the deadline's timer")
    await until(lambda: rid not in clock.ticking, what="the start's tick over")
    async with HeldTick(server, rid, monkeypatch):  # another process's tick, held after its read
        t0 = time.monotonic()
        assert (await ada.request("finish", race=rid))["t"] == "ok"
        checked = await store.scheduled_at(rid)
        assert checked is not None and checked <= server.service.now_ms() + END_CHECK_MS
    assert await store.scheduled_at(rid) == checked  # not raised to the deadline
    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    assert end["ranking"][0]["status"] == "finished"
    assert time.monotonic() - t0 < 60
    await ada.close()


@pytest.fixture
async def store(fast_settings: Settings) -> AsyncIterator[Store]:
    """A store with no server over it: a server's sweeper ticks the due timers, finds no
    race by their ids and removes them (between this test's write and its read, on a loaded
    machine)."""
    store = Store(fast_settings.redis, fast_settings)
    await store.start()
    yield store
    await store.close()


async def test_a_ticks_next_timer_is_kept_below_a_timer_set_in_the_future_since(store: Store):
    """reschedule.lua: a due timer (or none) takes the next one (or goes, for none); a timer
    later than the tick's now stays when it is earlier than the next one or there is none, and
    is lowered when it is later."""
    now = int(time.time() * 1000)
    cases = [  # (stored before, next timer, stored after)
        (None, now + 5_000, now + 5_000),
        (now - 10, now + 5_000, now + 5_000),
        (now, now + 5_000, now + 5_000),
        (now + 2_000, now + 5_000, now + 2_000),
        (now + 9_000, now + 5_000, now + 5_000),
        (None, None, None),
        (now - 10, None, None),
        (now + 2_000, None, now + 2_000),
    ]
    for i, (before, at, after) in enumerate(cases):
        rid = f"reschedule-{i}"
        if before is not None:
            await store.schedule(rid, before)
        await store.reschedule(rid, now, at)
        assert await store.scheduled_at(rid) == after, (before, at)
        await store.schedule(rid, None)
