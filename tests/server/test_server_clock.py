"""The race clock: a change that asks for a tick while one is running is not lost."""

from __future__ import annotations

import asyncio

from test_server_race import WIN, make_race
from waiting import until
from wsclient import player


async def test_a_finish_during_a_running_tick_still_ends_the_race(server, monkeypatch):
    """A tick that read the race just before the last player finished must not swallow the
    finish's own tick: the race ends now, not at its time limit (a bot that finishes as soon as
    its race starts meets the start's tick still running)."""
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], WIN["game"])  # a 60 s time limit: far beyond the wait below
    store = server.service.store
    clock = server.service.clock
    load_race = store.load_race
    read, release = asyncio.Event(), asyncio.Event()

    async def held_after_reading(race_id: str):
        got = await load_race(race_id)
        if race_id == rid and not read.is_set():
            read.set()  # this tick has read the race still running
            await release.wait()
        return got

    await until(lambda: rid not in clock.ticking, what="the start's tick over")
    monkeypatch.setattr(store, "load_race", held_after_reading)
    running = asyncio.create_task(clock.tick(rid))
    await until(read.is_set, what="the tick read the race")
    assert (await a.request("finish", race=rid))["t"] == "ok"
    await until(lambda: rid in clock.again, what="the finish asked for a tick")
    release.set()
    end = await a.wait(lambda msg: msg.get("t") == "end" and msg["race"] == rid)
    assert [row["status"] for row in end["ranking"]] == ["finished"]
    await running
    await a.close()


async def test_a_failed_tick_after_the_last_finish_is_retried(server, monkeypatch):
    """The finish that leaves nobody playing asks for a tick; when that tick fails (Redis out
    for a moment), it is tried again: the race ends now, not at its time limit."""
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], WIN["game"])  # a 60 s time limit: far beyond the wait below
    store = server.service.store
    clock = server.service.clock
    load_race = store.load_race
    calls: list[str] = []
    failed: list[str] = []

    async def fails_once(race_id: str):
        if race_id == rid:
            calls.append(race_id)
            if len(calls) == 2:  # the first read is the finish's own; the second, its tick's
                failed.append(race_id)
                raise ConnectionError("Redis out for a moment")
        return await load_race(race_id)

    await until(lambda: rid not in clock.ticking, what="the start's tick over")
    monkeypatch.setattr(store, "load_race", fails_once)
    assert (await a.request("finish", race=rid))["t"] == "ok"
    end = await a.wait(lambda msg: msg.get("t") == "end" and msg["race"] == rid)
    assert failed == [rid]
    assert [row["status"] for row in end["ranking"]] == ["finished"]
    await a.close()


class _Died(Exception):
    """The process stops here: nothing after the commit runs."""


async def test_a_process_dying_right_after_creating_a_race_leaves_it_startable(server, monkeypatch):
    """A race's seats and timer are written before the race itself: when the process that
    created a counting-down race dies just after the commit, the sweeper still starts it (with
    no timer it would count down for ever) and its players can resume it."""
    import redis.asyncio as aioredis

    from server.storage import keys as S

    a = await player(server.ws_url, "ada")
    store = server.service.store
    commit = store.commit
    created: list[str] = []

    async def commit_then_die(*args, **kwargs):
        await commit(*args, **kwargs)
        created.append(args[1].race)
        raise _Died

    monkeypatch.setattr(store, "commit", commit_then_die)
    try:
        await server.service.quick_match.seat_group(WIN["game"], [a.player], 60)
    except _Died:
        pass
    monkeypatch.undo()
    [rid] = created
    r = aioredis.Redis.from_url(server.settings.redis)
    try:
        assert rid.encode() in await r.smembers(S.seats_key(a.player))

        async def started() -> bool:
            return await r.hget(S.race_key(rid), "status") == b"running"

        await until(started, what="the sweeper started the race", timeout=60)
    finally:
        await r.aclose()
    await a.close()


async def test_a_process_dying_right_after_ending_a_race_leaves_its_follow_up_to_a_tick(server, monkeypatch):
    """The end's commit is what counts; the follow-up (seat freed, race unlisted, end hooks,
    timer removed) comes after it. When the ending process dies in between, the race's timer
    is still stored, and a tick a grace after the end does the follow-up instead."""
    import redis.asyncio as aioredis

    from server.handlers import clock as clock_module
    from server.storage import keys as S

    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], WIN["game"])  # a 60 s time limit: far beyond the waits below
    svc = server.service
    clock = svc.clock
    hooked: list[str] = []

    async def hook(race, _logs):
        hooked.append(race.race)

    svc.end_hooks.append(hook)
    after_end = clock._after_end

    async def die_before_follow_up(race, logs):
        raise _Died

    await until(lambda: rid not in clock.ticking, what="the start's tick over")
    monkeypatch.setattr(clock, "_after_end", die_before_follow_up)
    monkeypatch.setattr(clock_module, "TICK_NOW_ATTEMPTS", 1)  # the "dead" process does not retry
    assert (await a.request("finish", race=rid))["t"] == "ok"
    await a.wait(lambda msg: msg.get("t") == "end" and msg["race"] == rid)
    r = aioredis.Redis.from_url(server.settings.redis)
    try:
        # Ended, but the seat is still held and the race still listed and timed.
        assert rid.encode() in await r.smembers(S.seats_key(a.player))
        timer = await svc.store.scheduled_at(rid)
        assert timer is not None
        assert hooked == []
        # Another process (here the same one, alive again) ticks the race within the grace:
        # the ending process may still be at it, so nothing is done but the timer, which the
        # finish's end check had made early, put at the grace's end (not ticked every sweep).
        monkeypatch.setattr(clock, "_after_end", after_end)
        await clock.tick(rid)
        ended = (await svc.store.load_race(rid))[1].ended
        assert hooked == [] and await svc.store.scheduled_at(rid) == max(
            timer, ended + clock_module.AFTER_END_GRACE_MS
        )
        # Past the grace, a tick does it (the sweeper's, once the timer is due).
        monkeypatch.setattr(clock_module, "AFTER_END_GRACE_MS", 0)
        await clock.tick(rid)
        assert hooked == [rid]

        async def followed_up() -> bool:
            return (
                await svc.store.scheduled_at(rid) is None
                and rid.encode() not in await r.smembers(S.seats_key(a.player))
                and await r.zscore(S.PUBLIC, rid) is None
            )

        await until(followed_up, what="seat freed, race unlisted, timer removed")
        await clock.tick(rid)  # and once done, a tick does nothing more
        assert hooked == [rid]
        # A second process's end attempt that lost to this one must not bring the timer back
        # (its follow-up would run again, with a warning, a grace later).
        await svc.store.schedule_sooner(rid, 1)
        assert await svc.store.scheduled_at(rid) is None
    finally:
        await r.aclose()
    await a.close()
