"""A rated pool entry stays while a connection that queued for it is open, however long the
player waits (docs/protocol.md §9 "Rated quick-match"): no client sends `quick` again while it
waits, so the process holding the connection keeps the entry, and its seat, alive
(server/handlers/rated_queue.py `keep_alive`, server/ratings/pool.py `keep`). It used to go
stale `stale_ms` (10 minutes) after the player's last `quick`: the player was dropped while
their screen still said "Looking for a rival", and nobody arriving later was matched with them.

A keep-alive makes nothing again: an entry taken out (left, seated) stays out, and its seat
given back stays given back. The entries of a process that died (held by connections nobody
keeps alive) still go stale: here `test_an_entry_no_live_connection_holds_still_goes_stale`,
and at the pool's level tests/ratings/test_pool.py `test_a_stale_entry_is_dropped_with_its_claims`
and test_rated_entry_refreshed_by_quick.py `test_an_entry_not_queued_again_goes_stale_after_the_last_quick`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from test_rated_entry_outlives_other_device_logout import CHEAP_HASH, GAME, account, queued, rated_race
from waiting import until

from server.ratings import keys
from server.ratings.pool import Pool
from server.storage.players import rated_hold, reservations_key

# Short enough for a test of a few seconds, long enough that the keep-alive (every fifth of it)
# is never a whole `stale_ms` late on a loaded machine.
STALE_MS = 2_000
FAST_FORMING = dict(rated_form_ms=100, **CHEAP_HASH)


def forms_seen(app: Any) -> list[int]:
    """The start times (the service's clock) of the rounds of `app` that formed GAME's pool and
    have ended, in order."""
    done: list[int] = []
    queue = app.rated.queue
    form = queue.form

    async def timed(game: str) -> None:
        start = app.service.now_ms()
        await form(game)
        if game == GAME:
            done.append(start)

    queue.form = timed
    return done


async def formed_since(done: list[int], ms: int) -> None:
    """Wait until a round that began at `ms` or later has formed GAME's pool."""
    await until(lambda: done and done[-1] >= ms, what="a forming round after the deadline")


async def seat_reserved_until(app: Any, pid: str) -> float | None:
    """The deadline (Redis time, ms) of `pid`'s rated seat reservation in GAME, None if none."""
    score = await app.store.redis.zscore(reservations_key(pid), rated_hold(GAME))
    return None if score is None else float(score)


async def redis_ms(app: Any) -> int:
    seconds, micros = await app.store.redis.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def test_a_player_waiting_longer_than_stale_ms_is_still_matched(make_server):
    app = await make_server(**FAST_FORMING)
    pool = app.rated.pool
    pool.stale_ms = STALE_MS
    done = forms_seen(app)
    ada = await account(app.ws_url, "ada")
    await queued(ada, 2)
    queued_at = app.service.now_ms()
    # A round that began a whole stale_ms after ada's only `quick` dropped her entry, before.
    await formed_since(done, queued_at + STALE_MS)
    assert await pool.has(GAME, ada.player)
    [entry] = await pool.waiting(GAME)
    assert entry.joined_ms <= queued_at  # her place in the queue is kept
    deadline = await seat_reserved_until(app, ada.player)
    assert deadline is not None and deadline > await redis_ms(app)  # and her seat
    assert rated_hold(GAME) in await app.store.seat_ids(ada.player)
    assert not [f for f in ada.unread if f.get("t") == "race"]
    bob = await account(app.ws_url, "bob")
    await queued(bob, 2)
    snaps = [await c.wait(rated_race) for c in (ada, bob)]
    assert snaps[0]["race"] == snaps[1]["race"]
    await asyncio.gather(ada.close(), bob.close())


async def test_an_entry_no_live_connection_holds_still_goes_stale(make_server):
    """An entry held only by a connection of a process that died (an id no process keeps
    alive) is dropped `stale_ms` after it was queued, with its seat's claims, while one that
    a connection here holds stays."""
    app = await make_server(**FAST_FORMING)
    pool = app.rated.pool
    pool.stale_ms = STALE_MS
    ada = await account(app.ws_url, "ada")
    await queued(ada, 3)  # 3 seats: ada and the ghost never make a race on their own
    assert await pool.join(GAME, "ghost", 25.0, 3, "conn-of-a-dead-process/session", "tok")

    async def ghost_dropped() -> bool:
        return not await pool.has(GAME, "ghost")

    await until(ghost_dropped, what="the dead process's entry dropped")
    assert await pool.has(GAME, ada.player)
    assert await pool.holders(GAME, "ghost") == ()
    await ada.close()


async def test_a_keep_alive_after_the_entry_left_brings_back_neither_it_nor_its_seat(
    make_server, monkeypatch
):
    """The entry leaves (its seat given back, as `unqueue` or a seating does) between the
    keep-alive's refresh of the entry and its renewal of the seat: the renewal takes no seat."""
    app = await make_server(**FAST_FORMING)
    pool, store = app.rated.pool, app.store
    pool.stale_ms = STALE_MS
    ada = await account(app.ws_url, "ada")
    pid, hold = ada.player, rated_hold(GAME)
    kept: list[bool] = []
    keep = pool.keep

    async def keep_then_leave(game: str, player: str, holders: Any) -> bool:
        result = await keep(game, player, holders)
        if player == pid and result and True not in kept:
            claims = await pool.leave(GAME, pid)
            await store.drop_claims(pid, hold, claims or ())
        kept.append(result)
        return result

    monkeypatch.setattr(pool, "keep", keep_then_leave)
    await queued(ada, 2)
    # A round kept the entry (it then left); the next one found it gone, and the connection
    # waits for nothing now: no more rounds for it.
    await until(lambda: not any(app.rated.queue.waiting.values()), what="the connection's record dropped")
    first = kept.index(True)
    assert kept[first + 1 :] == [False]
    assert not await pool.has(GAME, pid)
    assert hold not in await store.seat_ids(pid)
    assert await seat_reserved_until(app, pid) is None
    await ada.close()


async def test_a_keep_alive_after_another_process_seated_the_group_brings_nothing_back(
    make_server, monkeypatch
):
    """ada waits on one process, which keeps her entry alive; another process seats her
    group: the first one's next rounds neither put her back in the pool nor take her seat
    again, and it stops keeping anything for her connection."""
    app1, app2 = await make_server(**FAST_FORMING), await make_server(**FAST_FORMING)
    for app in (app1, app2):
        app.rated.pool.stale_ms = STALE_MS

    async def forms_nothing(game: str) -> None:
        return None

    monkeypatch.setattr(app1.rated.queue, "form", forms_nothing)  # app2 forms and seats the group
    results: list[bool] = []
    keep = app1.rated.pool.keep

    async def noted(game: str, player: str, holders: Any) -> bool:
        result = await keep(game, player, holders)
        results.append(result)
        return result

    monkeypatch.setattr(app1.rated.pool, "keep", noted)
    ada = await account(app1.ws_url, "ada")
    pid, hold = ada.player, rated_hold(GAME)
    await queued(ada, 2)
    await until(lambda: True in results, what="a keep-alive round that kept ada's entry")
    bob = await account(app2.ws_url, "bob")
    await queued(bob, 2)
    snap = await ada.wait(rated_race)
    # app1's round after the seating: the entry is gone, and so is the seat it held.
    await until(lambda: not any(app1.rated.queue.waiting.values()), what="app1 keeps nothing for ada")
    assert results[-1] is False
    assert not await app1.rated.pool.has(GAME, pid)
    assert await app1.store.seat_ids(pid) == {snap["race"]}  # the race's seat, no hold
    assert hold not in await app1.store.seat_ids(pid)
    assert await seat_reserved_until(app1, pid) is None
    await asyncio.gather(ada.close(), bob.close())


async def test_keep_refreshes_only_an_entry_that_waits_and_that_the_holders_hold(r, clock):
    pool = Pool(r, clock, stale_ms=60_000)
    t0 = clock.ms
    assert await pool.join(GAME, "a", 25.0, 2, "conn-a/s", "tok-a", "s")
    clock.ms += 50_000
    assert not await pool.keep(GAME, "a", ["conn-b/s"])  # not a holder of it
    assert await pool.keep(GAME, "a", ["conn-b/s", "conn-a/s"])
    [a] = await pool.waiting(GAME)
    assert (a.joined_ms, a.seen_ms) == (t0, t0 + 50_000)  # its place kept, seen now
    assert 0 < await r.pttl(keys.held(GAME, "a")) <= 60_000
    clock.ms += 50_000  # 100 s after the join, 50 s after the keep: not stale
    dropped: dict[str, tuple[str, ...]] = {}
    assert await pool.form(GAME, dropped) == [] and dropped == {}
    assert await pool.has(GAME, "a")
    assert await pool.keep(GAME, "a", ["conn-a/s"])  # a refreshed entry's text is rewritten as one
    [a] = await pool.waiting(GAME)
    assert (a.joined_ms, a.seen_ms) == (t0, t0 + 100_000)
    clock.ms += 60_000  # nobody kept it since: stale
    assert await pool.form(GAME, dropped) == []
    assert dropped == {"a": ("tok-a",)}
    assert not await pool.keep(GAME, "a", ["conn-a/s"])
    assert await pool.waiting(GAME) == []


async def test_keep_never_makes_an_entry_taken_out_again(r, clock):
    pool = Pool(r, clock, stale_ms=60_000)
    # Left.
    await pool.join(GAME, "a", 25.0, 2, "conn-a/s", "tok-a", "s")
    assert await pool.leave(GAME, "a") == ("tok-a",)
    assert not await pool.keep(GAME, "a", ["conn-a/s"])
    # Let go of by its last holder (a closed connection: its id is never used again).
    await pool.join(GAME, "a", 25.0, 2, "conn-a/s", "tok-a", "s")
    assert await pool.release(GAME, "a", "conn-a/s") == ("tok-a",)
    assert not await pool.keep(GAME, "a", ["conn-a/s"])
    # Taken out by a formed group (its race being seated).
    await pool.join(GAME, "a", 25.0, 2, "conn-a2/s", "tok-a", "s")
    await pool.join(GAME, "b", 25.0, 2, "conn-b/s", "tok-b", "s")
    [formed] = await pool.form(GAME)
    assert not await pool.keep(GAME, "a", ["conn-a2/s"])
    assert await pool.waiting(GAME) == []
    for player in ("a", "b"):
        assert await pool.holders(GAME, player) == ()
        assert not await r.exists(keys.claim_tokens(GAME, player))
    # Put back (its seating failed): its holders hold it again, and keep it.
    assert await pool.restore(GAME, formed.members, formed.taken) == {}
    assert await pool.keep(GAME, "a", ["conn-a2/s"])
