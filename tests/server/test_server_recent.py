"""`recent`: a player's own finished races (docs/protocol.md §9), over real sockets and a
real Redis; and the lists in Redis (server/storage/recent.py): cap, idempotence, lifetimes."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from test_server_accounts import CHEAP_HASH, account
from waiting import until
from wsclient import Raw, player

from protocol import messages as m
from server.handlers.clock import AFTER_END_RETRY_MAX_MS, AFTER_END_RETRY_MIN_MS
from server.storage.keys import recent_entries_key, recent_key
from server.storage.recent import ACCOUNT_RECENT_TTL_S, RECENT_CAP

GAME = "racing-aces"
DAY_S = 86_400


@pytest.fixture
async def app(make_server):
    return await make_server(**CHEAP_HASH)


@pytest.fixture
async def r(app):
    client = aioredis.Redis.from_url(app.settings.redis)
    yield client
    await client.aclose()


async def solo_race(c: Raw, *, moves: int = 1) -> str:
    """A one-seat race of `c`, `moves` draws, then declared finished; its id once it ended."""
    snap = await c.request("create", game=GAME, seats=1)
    assert snap["t"] == "race", snap
    rid = snap["race"]
    assert (await c.request("ready", race=rid))["t"] == "race"
    await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    for n in range(moves):
        assert (await c.request("move", race=rid, n=n, move="draw"))["t"] == "ack"
    assert (await c.request("finish", race=rid))["t"] == "ok"
    await c.wait(lambda f: f.get("t") == "end" and f["race"] == rid)
    return rid


async def listed(c: Raw, count: int, **fields: Any) -> list[dict[str, Any]]:
    """`c`'s recent races once at least `count` are listed (the end's follow-up writes them
    just after the `end` event)."""

    async def ask() -> list[dict[str, Any]] | None:
        reply = await c.request("recent", **fields)
        assert reply["t"] == "recent_races", reply
        return reply["races"] if len(reply["races"]) >= count else None

    races: list[dict[str, Any]] = await until(ask, what=f"{count} recent races")
    return races


def no_seed_anywhere(value: Any) -> None:
    if isinstance(value, dict):
        assert "seed" not in value, value
        for v in value.values():
            no_seed_anywhere(v)
    elif isinstance(value, list):
        for v in value:
            no_seed_anywhere(v)


async def test_a_guest_gets_their_own_races_newest_first_and_nobody_else_s(app):
    url = app.ws_url
    ada, bob = await player(url, "ada"), await player(url, "bob")
    assert (await ada.request("recent"))["races"] == []
    first = await solo_race(ada, moves=2)
    second = await solo_race(ada, moves=1)
    theirs = await solo_race(bob)

    races = await listed(ada, 2)
    assert [e["race"] for e in races] == [second, first]
    newest = races[0]
    assert newest["game"] == GAME and newest["kind"] == "public" and newest["rated"] is False
    assert (newest["rank"], newest["players"], newest["status"], newest["moves"]) == (1, 1, "finished", 1)
    assert newest["total"] == 156 and isinstance(newest["home"], int) and isinstance(newest["time_ms"], int)
    assert races[1]["moves"] == 2 and races[0]["at"] >= races[1]["at"]
    assert "arena" not in newest and "before" not in newest
    no_seed_anywhere(races)
    assert [e["race"] for e in (await ada.request("recent", limit=1))["races"]] == [second]

    # Privacy: bob sees his race only, and nobody can name another player.
    assert [e["race"] for e in await listed(bob, 1)] == [theirs]
    refused = await bob.request("recent", player=ada.player)
    assert (refused["t"], refused["code"], refused["field"]) == ("error", "bad-message", "player")
    for limit in (0, RECENT_CAP + 1):
        refused = await ada.request("recent", limit=limit)
        assert (refused["code"], refused["field"]) == ("bad-message", "limit")

    # Every frame either of them got, entries included, is free of a `seed` in any entry.
    for c in (ada, bob):
        for frame in c.frames:
            msg = msgspec.msgpack.decode(frame)
            if msg.get("t") == "recent_races":
                no_seed_anywhere(msg)
    await asyncio.gather(ada.close(), bob.close())


async def test_a_race_whose_end_is_followed_up_twice_is_listed_once(app, r):
    """The end's follow-up done again, as a process does for a race whose ending process
    died before removing its timer: the race is still listed once."""
    ada = await player(app.ws_url, "ada")
    rid = await solo_race(ada)
    assert [e["race"] for e in await listed(ada, 1)] == [rid]
    store = app.service.store
    _now, race = await store.load_race(rid)
    assert race is not None and race.status == "finished"
    for _ in range(2):
        await app.service.clock._after_end(race, await store.move_logs(race))
    assert [e["race"] for e in (await ada.request("recent"))["races"]] == [rid]
    assert await r.zcard(recent_key(ada.player)) == 1 and await r.hlen(recent_entries_key(ada.player)) == 1
    await ada.close()


def entry(rid: str, at: int) -> bytes:
    return msgspec.json.encode(
        m.RecentRace(
            race=rid,
            game=GAME,
            kind="public",
            at=at,
            rank=1,
            players=1,
            status="won",
            home=156,
            total=156,
            moves=200,
            time_ms=60_000,
            rated=False,
        )
    )


async def test_the_list_keeps_the_newest_races_up_to_the_cap(app, r):
    ada = await player(app.ws_url, "ada")
    store = app.service.store
    more = RECENT_CAP + 5
    for i in range(more):  # written out of order: the list is by end time
        k = (i * 7) % more
        await store.note_recent(f"r{k:016x}", 1_000 + k, {ada.player: entry(f"r{k:016x}", 1_000 + k)})
    assert await r.zcard(recent_key(ada.player)) == RECENT_CAP
    assert await r.hlen(recent_entries_key(ada.player)) == RECENT_CAP
    races = (await ada.request("recent", limit=RECENT_CAP))["races"]
    assert [e["at"] for e in races] == [1_000 + k for k in range(more - 1, more - 1 - RECENT_CAP, -1)]
    assert len((await ada.request("recent"))["races"]) == 20  # the default limit
    # A race older than the RECENT_CAP kept, written (again) now, falls off at once.
    await store.note_recent("r" + "0" * 16, 1_000, {ada.player: entry("r" + "0" * 16, 1_000)})
    assert await r.zcard(recent_key(ada.player)) == RECENT_CAP
    assert not await r.hexists(recent_entries_key(ada.player), "r" + "0" * 16)
    await ada.close()


async def test_a_guest_s_list_lives_as_its_session_and_an_account_s_longer(app, r):
    url = app.ws_url
    ada = await player(url, "ada")
    await solo_race(ada)
    await listed(ada, 1)
    session_ttl = app.settings.session_ttl_s
    keys = (recent_key(ada.player), recent_entries_key(ada.player))
    for key in keys:
        assert session_ttl - 60 < await r.ttl(key) <= session_ttl
        await r.expire(key, 100)
    # A guest's hello renews the list with the session.
    again = await Raw.open(url)
    await again.hello(token=ada.token)
    for key in keys:
        assert await r.ttl(key) > session_ttl - 60
    # Claimed: an account's lifetime, which a race written later does not shorten.
    claimed = await again.request("claim", name="ada", password="correct horse")
    assert claimed["t"] == "account"
    for key in keys:
        assert await r.ttl(key) > ACCOUNT_RECENT_TTL_S - 60
    await again.close()
    acct = await Raw.open(url)
    await acct.hello(token=claimed["token"])
    for key in keys:
        await r.expire(key, 100)
    await solo_race(acct)
    await listed(acct, 2)
    for key in keys:
        assert await r.ttl(key) > ACCOUNT_RECENT_TTL_S - 60
    # ...and an account's hello renews it for as long.
    for key in keys:
        await r.expire(key, 100)
    other = await Raw.open(url)
    await other.hello(token=claimed["token"])
    for key in keys:
        assert await r.ttl(key) > ACCOUNT_RECENT_TTL_S - 60
    assert ACCOUNT_RECENT_TTL_S >= 90 * DAY_S > session_ttl
    await asyncio.gather(ada.close(), acct.close(), other.close())


async def test_a_rated_race_shows_each_player_s_rating_change(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    snap = await ada.request("create", game=GAME, seats=2, rated=True)
    rid = snap["race"]
    assert (await bob.request("join", race=rid))["t"] == "race"
    for c in (ada, bob):
        assert (await c.request("ready", race=rid))["t"] == "race"
    for c in (ada, bob):
        await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    assert (await ada.request("move", race=rid, n=0, move="draw"))["t"] == "ack"
    for c in (ada, bob):
        assert (await c.request("finish", race=rid))["t"] == "ok"
    for c in (ada, bob):
        change = await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid)
    mine = {p["player"]: p for p in change["players"]}

    for c, rank in ((ada, 1), (bob, 2)):

        async def rated(c: Raw = c) -> dict[str, Any] | None:
            races = (await c.request("recent"))["races"]
            return races[0] if races and "after" in races[0] else None

        e = await until(rated, what="the rating change in the recent race")
        assert (e["race"], e["kind"], e["rated"], e["rank"], e["players"]) == (rid, "public", True, rank, 2)
        assert e["before"] == mine[c.player]["before"] and e["after"] == mine[c.player]["after"]
        no_seed_anywhere(e)
    await asyncio.gather(ada.close(), bob.close())


@pytest.mark.parametrize("lag_ms", [0, 200])
async def test_a_recent_write_that_keeps_failing_is_retried_less_and_less_often(app, r, monkeypatch, lag_ms):
    """The end's follow-up whose recent-races write fails keeps the race's timer, moved a
    minute on (half the time since the end, at most an hour): not due at every sweep, where
    a write that keeps failing (a bug) would be tried and logged again and again. Also when
    the process's estimate of Redis' clock lags it (`lag_ms`; by a reply's latency, it once
    put the retry a few ms less than a minute after the end Redis stamped)."""
    import server.handlers.clock as clock_module

    app.service.offset_ms -= lag_ms

    failed: list[str] = []

    async def broken(store: Any, race: Any) -> None:
        failed.append(race.race)
        raise RuntimeError("a bug in the recent write")

    monkeypatch.setattr(clock_module, "record_race", broken)
    ada = await player(app.ws_url, "ada")
    rid = await solo_race(ada)
    svc, store = app.service, app.service.store
    _now, race = await store.load_race(rid)
    assert race is not None and race.ended is not None

    async def retry_at() -> int | None:
        at = await store.scheduled_at(rid)
        return at if failed and at is not None and at >= race.ended + AFTER_END_RETRY_MIN_MS else None

    at = await until(retry_at, what="the follow-up's retry scheduled")
    # (not before the end Redis stamped: the process's clock estimate may lag it a little)
    assert at <= max(svc.now_ms(), race.ended) + AFTER_END_RETRY_MIN_MS
    # long after the end: an hour at most between tries
    old = dataclasses.replace(race, ended=svc.now_ms() - 10 * 3_600_000)
    await svc.clock._after_end(old, await store.move_logs(race))
    assert (
        svc.now_ms() + AFTER_END_RETRY_MAX_MS - 5_000
        <= await store.scheduled_at(rid)
        <= svc.now_ms() + AFTER_END_RETRY_MAX_MS
    )
    # the write works again: the next try lists the race and removes the timer
    monkeypatch.undo()
    await svc.clock._after_end_left_over(race, svc.now_ms() + AFTER_END_RETRY_MAX_MS)
    assert [e["race"] for e in await listed(ada, 1)] == [rid]
    assert await store.scheduled_at(rid) is None
    await ada.close()


async def test_an_end_hook_that_fails_is_run_again_later(app, r):
    """An end hook that fails (a daily result, a rating: Redis out for a moment) keeps the
    race's timer like a failed recent write: the follow-up, hooks included, is done again."""
    runs: list[str] = []

    async def flaky(race: Any, logs: Any) -> None:
        runs.append(race.race)
        if len(runs) == 1:
            raise RuntimeError("Redis out for a moment")

    svc, store = app.service, app.service.store
    svc.end_hooks.append(flaky)
    try:
        ada = await player(app.ws_url, "ada")
        rid = await solo_race(ada)
        _now, race = await store.load_race(rid)
        assert race is not None and race.ended is not None

        async def retry() -> str | None:
            if len(runs) > 1:
                # A sweep that ticked the race a grace after its end (a machine stalled for
                # seconds) found the follow-up left over and did it again already.
                return "done"
            at = await store.scheduled_at(rid)
            if runs and at is not None and at >= race.ended + AFTER_END_RETRY_MIN_MS:
                return "scheduled"
            return None

        if await until(retry, what="the follow-up's retry scheduled") == "scheduled":
            await svc.clock._after_end_left_over(race, svc.now_ms() + AFTER_END_RETRY_MAX_MS)
        assert runs == [rid, rid]
        assert await store.scheduled_at(rid) is None
        await ada.close()
    finally:
        svc.end_hooks.remove(flaky)
