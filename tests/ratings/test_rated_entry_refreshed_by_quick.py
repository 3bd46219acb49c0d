"""A rated pool entry nobody keeps alive (server/ratings/pool.py `keep`: the connections holding
it are of a process that died) goes stale 10 minutes after the player's *last* rated `quick` of
the game, not after the first: queueing again keeps the player's place (matchmaking still goes
by the first join) and keeps the entry from being dropped. A live process keeps its connections'
entries alive: test_rated_entry_kept_alive_while_waiting.py."""

from __future__ import annotations

from server.ratings.pool import Pool

GAME = "rouge-et-noir"
STALE_MS = 60_000


async def test_queueing_again_keeps_the_entry_past_the_first_join_s_staleness(r, clock):
    pool = Pool(r, clock, stale_ms=STALE_MS)
    t0 = clock.ms
    assert await pool.join(GAME, "a", 25.0, 3, "conn-a", "tok-a1")
    for _ in range(3):  # the player keeps queueing, each time well within the staleness
        clock.ms += STALE_MS // 2
        assert not await pool.join(GAME, "a", 25.0, 3, "conn-a", "tok-a2")  # keeps its place
    last = clock.ms
    clock.ms = last + STALE_MS - 1  # long after the first join, not after the last quick
    dropped: dict[str, tuple[str, ...]] = {}
    assert await pool.form(GAME, dropped) == []
    assert dropped == {}
    [a] = await pool.waiting(GAME)
    assert a.joined_ms == t0  # matchmaking priority: the first join
    # The refreshed entry is taken out as any: a full group forms from it.
    assert await pool.join(GAME, "b", 25.0, 3)
    assert await pool.join(GAME, "c", 25.0, 3)
    [formed] = await pool.form(GAME, dropped)
    assert sorted(w.player for w in formed.members) == ["a", "b", "c"] and dropped == {}
    assert set(formed.taken["a"].claims) == {"tok-a1", "tok-a2"}


async def test_an_entry_not_queued_again_goes_stale_after_the_last_quick(r, clock):
    pool = Pool(r, clock, stale_ms=STALE_MS)
    assert await pool.join(GAME, "a", 25.0, 2, "conn-a", "tok-a1")
    clock.ms += STALE_MS // 2
    assert not await pool.join(GAME, "a", 25.0, 2, "conn-a", "tok-a2")
    clock.ms += STALE_MS
    dropped: dict[str, tuple[str, ...]] = {}
    assert await pool.form(GAME, dropped) == []
    assert {p: set(c) for p, c in dropped.items()} == {"a": {"tok-a1", "tok-a2"}}
    assert await pool.waiting(GAME) == []


async def test_a_refreshed_entry_that_was_taken_out_is_put_back_as_it_was(r, clock):
    """restore compares and writes an entry's text: a refreshed one's included."""
    pool = Pool(r, clock, stale_ms=STALE_MS)
    await pool.join(GAME, "a", 25.0, 2, "conn-a", "tok-a1")
    clock.ms += 1_000
    await pool.join(GAME, "a", 25.0, 2, "conn-a", "tok-a2")
    await pool.join(GAME, "b", 25.0, 2, "conn-b", "tok-b")
    [formed] = await pool.form(GAME)
    assert await pool.restore(GAME, formed.members, formed.taken) == {}
    assert sorted(await pool.waiting(GAME), key=lambda w: w.player) == sorted(
        formed.members, key=lambda w: w.player
    )
    [again] = await pool.form(GAME)
    assert sorted(w.player for w in again.members) == ["a", "b"]
