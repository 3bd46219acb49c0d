"""ArenaStore against a real redis-server: join, pair, apply once, standings, finalize."""

from __future__ import annotations

import asyncio
import json

import pytest
from must import must
from result_rows import row

from server.arena import Arena, ArenaError, ArenaStore, Prepared, keys
from server.arena.pairing import Window
from server.arena.records import text as _s
from server.arena.scoring import pack, unpack

NOW_WINDOW = Window(base_window=4, widen_per_s=10.0, max_wait_ms=3_000)


def win(player, time_ms):
    return {
        "player": player,
        "name": player.upper(),
        "status": "won",
        "won": True,
        "home": 52,
        "moves": 90,
        "time_ms": time_ms,
        "home_at_ms": time_ms,
    }


@pytest.fixture
def arena(clock):
    return Arena("t-1", "racing-aces", starts=clock.now, duration_ms=60_000, seats=2, time_limit_s=60)


@pytest.fixture
async def store(clients, clock, arena):
    s = ArenaStore(clients(), clock=clock, window=NOW_WINDOW)
    assert await s.create(arena)
    return s


async def formed_pair(store, a, b, arena):
    """Join a and b (alone in the arena) and pair them into one race."""
    await store.join(arena.id, a, a.upper())
    await store.join(arena.id, b, b.upper())
    [race] = await store.pair(arena.id, arena.seats)
    return race


async def test_create_is_idempotent_and_listed(store, arena, clock):
    assert not await store.create(arena)
    info = await store.get(arena.id)
    assert info.arena == arena and info.created == clock.now and info.finalized is None
    assert await store.listing(arena.starts, arena.starts + 1) == [arena.id]
    assert await store.get("nope") is None


async def test_a_refused_create_does_not_move_the_existing_arena(store, arena, clock):
    """A create of an id that exists is refused and changes nothing: it used to index the
    arena at the refused request's start, which dropped it from the listing and the loop."""
    moved = Arena(arena.id, "fours-up", starts=0, duration_ms=60_000, seats=2, time_limit_s=60)
    assert not await store.create(moved)
    assert (await store.get(arena.id)).arena == arena
    assert await store.listing(arena.starts, arena.starts + 1) == [arena.id]
    assert await store.r.zscore(keys.INDEX, arena.id) == arena.starts
    # a creator that died before indexing is repaired by the next create, at its own start
    await store.r.zrem(keys.INDEX, arena.id)
    assert not await store.create(moved)
    assert await store.r.zscore(keys.INDEX, arena.id) == arena.starts


async def test_all_keys_share_the_arena_hash_tag(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    await store.berserk(arena.id, race.race, "a")
    clock.now += 1000
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    ks = [k.decode() for k in await store.r.keys("*")]
    assert ks
    for k in ks:
        assert k == keys.INDEX or k.startswith("{arena:t-1}:"), k


async def test_join_and_withdraw(store, arena, clock):
    with pytest.raises(ArenaError) as e:
        await store.join("nope", "a", "A")
    assert e.value.code == "no-arena"
    await store.join(arena.id, "a", "A")
    await store.join(arena.id, "a", "A")  # a rejoin is harmless
    board = await store.standings(arena.id, player="a")
    assert board.count == 1 and board.me.rank == 1 and board.me.standing.points == 0
    assert await store.withdraw(arena.id, "a")
    assert not await store.withdraw(arena.id, "a")
    assert await store.free_players(arena.id, clock.now) == []
    assert (await store.standings(arena.id)).count == 1  # the standing stays
    clock.now = arena.ends
    with pytest.raises(ArenaError) as e:
        await store.join(arena.id, "b", "B")
    assert e.value.code == "arena-over"


async def test_no_pairing_before_the_start_or_after_the_end(store, arena, clock):
    clock.now = arena.starts - 1
    await store.join(arena.id, "a", "A")
    await store.join(arena.id, "b", "B")
    assert await store.pair(arena.id, 2) == []
    clock.now = arena.ends
    assert await store.pair(arena.id, 2) == []
    clock.now = arena.starts
    assert len(await store.pair(arena.id, 2)) == 1


async def test_concurrent_pairing_never_seats_a_player_twice(store, arena, clients, clock):
    other = ArenaStore(clients(), clock=clock, window=NOW_WINDOW)
    players = [f"p{i:02d}" for i in range(60)]
    for p in players:
        await store.join(arena.id, p, p)
    rounds = await asyncio.gather(*(s.pair(arena.id, 3) for s in (store, other, store, other)))
    formed = [f for r in rounds for f in r]
    seated = [p for f in formed for p in f.players]
    assert len(seated) == len(set(seated)) == 60
    assert all(len(f.players) == 3 for f in formed)
    busy = await store.r.hgetall(keys.busy(arena.id))
    assert {k.decode(): v.decode() for k, v in busy.items()} == {p: f.race for f in formed for p in f.players}


async def test_pair_apply_and_standings(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    assert set(race.players) == {"a", "b"}
    assert await store.pair(arena.id, 2) == []  # both busy
    assert set((await store.formed(arena.id))[race.race]["players"]) == {"a", "b"}
    clock.now += 5000
    out = await store.apply(arena.id, race.race, [row("a", 10), row("b", 30)])
    assert out.status == "ok"
    assert {rp.player: rp.points for rp in out.points} == {"a": 1, "b": 2}
    board = await store.standings(arena.id, top=10, player="a")
    assert [(r.rank, r.standing.player, r.standing.points) for r in board.top] == [(1, "b", 2), (2, "a", 1)]
    assert board.me.rank == 2
    b = board.top[0].standing
    assert (b.races, b.wins, b.streak, b.reached_ms) == (1, 1, 1, 5000)
    assert await store.history(arena.id, "b") == [(race.race, 1, 2)]
    # both are free again, since the apply
    free = await store.free_players(arena.id, clock.now)
    assert {f.player for f in free} == {"a", "b"}
    assert all(f.waited_ms == 0 for f in free)
    assert await store.formed(arena.id) == {}
    res = (await store.results(arena.id))[race.race]
    assert [e["player"] for e in res["ranking"]] == ["b", "a"] and res["berserk"] == []


async def test_apply_is_exactly_once(store, arena, clock, clients):
    other = ArenaStore(clients(), clock=clock)
    race = await formed_pair(store, "a", "b", arena)
    rows = [win("a", 30_000), row("b", 3)]
    # a process computes the points, then dies before writing them
    lost = await store.prepare(arena.id, race.race, rows)
    assert isinstance(lost, Prepared)
    # the other process applies the same race, twice at once
    outs = await asyncio.gather(
        other.apply(arena.id, race.race, rows), store.apply(arena.id, race.race, rows)
    )
    assert sorted(o.status for o in outs) == ["dup", "ok"]
    # the dead process's write, replayed late, changes nothing
    assert (await store.commit(lost)).status == "dup"
    assert (await other.apply(arena.id, race.race, rows)).status == "dup"
    board = await store.standings(arena.id)
    assert {r.standing.player: r.standing.points for r in board.top} == {"a": 3, "b": 1}
    assert await store.history(arena.id, "a") == [(race.race, 1, 3)]


async def test_stale_prepare_is_refused_then_redone(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    prepared = await store.prepare(arena.id, race.race, [row("a", 9), row("b", 3)])
    # someone changed a's standing meanwhile (not possible through the store, a
    # player is in one race at a time, but the script must not trust that)
    await store.r.hset(keys.standings(arena.id), "a", prepared.read[0].replace('"points":0', '"points":7'))
    assert (await store.commit(prepared)).status == "stale"
    out = await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    assert out.status == "ok"
    board = await store.standings(arena.id)
    assert {r.standing.player: r.standing.points for r in board.top} == {"a": 9, "b": 1}


async def test_apply_checks_the_players(store, arena):
    race = await formed_pair(store, "a", "b", arena)
    with pytest.raises(ValueError):
        await store.apply(arena.id, race.race, [row("a", 9), row("c", 3)])
    assert (await store.apply(arena.id, "no-such", [row("a", 9)])).status == "no-race"


async def test_streak_and_berserk_through_the_store(store, arena, clock):
    await store.join(arena.id, "a", "A")
    await store.join(arena.id, "b", "B")
    expected = [2, 2, 4 + 1]  # two wins, then on fire with berserk
    for i, pts in enumerate(expected):
        [race] = await store.pair(arena.id, 2)
        if i == 2:
            assert await store.berserk(arena.id, race.race, "a")
            assert not await store.berserk(arena.id, race.race, "zz")
        clock.now += 1000
        out = await store.apply(arena.id, race.race, [row("a", 20), row("b", 5)])
        assert {rp.player: rp.points for rp in out.points}["a"] == pts
        assert await store.pair(arena.id, 2) == []  # no immediate rematch...
        clock.now += NOW_WINDOW.max_wait_ms  # ...unless nobody else comes
    board = await store.standings(arena.id, player="a")
    assert board.me.standing.points == 9 and board.me.standing.streak == 3
    res = await store.results(arena.id)
    assert [r["berserk"] for r in sorted(res.values(), key=lambda r: r["seq"])] == [[], [], ["a"]]


async def test_berserk_refused_where_not_allowed(clients, clock):
    s = ArenaStore(clients(), clock=clock)
    a = Arena("nb", "racing-aces", starts=clock.now, duration_ms=60_000, berserk=False)
    await s.create(a)
    race = await formed_pair(s, "a", "b", a)
    assert not await s.berserk(a.id, race.race, "a")


async def test_release_frees_the_players_without_points(store, arena):
    race = await formed_pair(store, "a", "b", arena)
    assert await store.release(arena.id, race.race)
    assert not await store.release(arena.id, race.race)
    assert len(await store.pair(arena.id, 2)) == 1
    assert (await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])).status == "no-race"


async def test_withdrawn_player_is_not_freed_by_the_apply(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    await store.withdraw(arena.id, "b")
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    assert [f.player for f in await store.free_players(arena.id, clock.now)] == ["a"]
    board = await store.standings(arena.id, player="b")
    assert board.me.standing.points == 1  # a withdrawal keeps the points


async def test_featured_race_is_the_top_players(store, arena, clock):
    for p in "abcd":
        await store.join(arena.id, p, p)
    first = await store.pair(arena.id, 2)
    assert len(first) == 2
    clock.now += 1000
    for race in first:
        await store.apply(arena.id, race.race, [row(race.players[0], 9), row(race.players[1], 3)])
    second = {r.race: r for r in await store.pair(arena.id, 2)}
    board = await store.standings(arena.id)
    leader = board.top[0].standing.player
    featured = await store.featured(arena.id)
    assert leader in second[featured].players


@pytest.mark.parametrize("chunk", [1, 2, 64])
async def test_featured_race_skips_the_leaders_not_racing(store, arena, clock, monkeypatch, chunk):
    # The standings are walked from the top a chunk at a time (FEATURED_CHUNK); leaders whose
    # race is over and who wait to be paired again have none: the next one's race is featured.
    monkeypatch.setattr("server.arena.store.FEATURED_CHUNK", chunk)
    assert await store.featured(arena.id) is None  # nobody joined
    for p in "abcdefgh":
        await store.join(arena.id, p, p)
    assert await store.featured(arena.id) is None  # joined, not paired
    first = await store.pair(arena.id, 2)
    assert len(first) == 4
    clock.now += 1000
    for race in first[:3]:  # their winners lead; the fourth race plays on
        await store.apply(arena.id, race.race, [row(race.players[0], 9), row(race.players[1], 3)])
    busy = {_s(p): _s(r) for p, r in (await store.r.hgetall(keys.busy(arena.id))).items()}
    order = [_s(p) for p in await store.r.zrange(keys.board(arena.id), 0, -1)]
    assert order[0] not in busy  # the leader is not in a race
    expected = next(busy[p] for p in order if p in busy)
    assert await store.featured(arena.id) == expected == first[3].race


async def test_ties_share_a_rank_and_list_by_player_id(store, arena):
    for p in ("c", "a", "b"):
        await store.join(arena.id, p, p)
    board = await store.standings(arena.id)
    # all joined at the start with 0 points: one shared rank
    assert [(r.rank, r.standing.player) for r in board.top] == [(1, "a"), (1, "b"), (1, "c")]
    raw = await store.r.zscore(keys.board(arena.id), "a")
    assert unpack(raw) == (0, 0, 0)


async def test_finalize_keeps_the_final_standings(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    other = await formed_pair(store, "c", "d", arena)
    clock.now += 1000
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    assert await store.finalize(arena.id) == "running"
    clock.now = arena.ends
    assert await store.finalize(arena.id) == "waiting"  # c and d still race
    clock.now = arena.ends + 1000
    await store.apply(arena.id, other.race, [row("c", 9), row("d", 9, at=2000)])
    assert await store.finalize(arena.id) == "ok"
    assert await store.finalize(arena.id) == "done"
    final = await store.final(arena.id)
    assert [(r.rank, r.standing.player, r.standing.points) for r in final] == [
        (1, "a", 2),
        (2, "c", 2),
        (3, "b", 1),
        (4, "d", 1),  # the same points as b, reached later
    ]
    info = await store.get(arena.id)
    assert info.finalized == clock.now
    # after the end: nothing joins, pairs or scores any more
    with pytest.raises(ArenaError):
        await store.join(arena.id, "e", "E")
    assert await store.r.exists(keys.free(arena.id), keys.joined(arena.id), keys.races(arena.id)) == 0
    assert await store.final(arena.id) == final


async def test_finalize_drops_races_past_the_grace(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    clock.now = arena.ends + arena.grace_ms
    assert await store.finalize(arena.id) == "ok"
    assert (await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])).status == "final"
    assert json.loads((await store.r.hget(keys.meta(arena.id), "dropped")).decode()) == 1
    assert [r.standing.points for r in await store.final(arena.id)] == [0, 0]


async def test_the_grace_includes_the_countdown(clients, clock, arena):
    """A race formed just before the end starts its clock after the countdown: the grace
    waits for that too (a countdown over 5 s dropped such a race unplayed)."""
    store = ArenaStore(clients(), clock=clock, window=NOW_WINDOW, countdown_ms=10_000)
    assert await store.create(arena)
    race = await formed_pair(store, "a", "b", arena)
    clock.now = arena.ends + arena.grace_ms
    assert await store.finalize(arena.id) == "waiting"
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    assert await store.finalize(arena.id) == "ok"
    assert [r.standing.points for r in must(await store.final(arena.id))] == [2, 1]


async def test_packed_scores_in_redis_are_exact(store, arena, clock):
    race = await formed_pair(store, "a", "b", arena)
    clock.now += 123_456
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 3)])
    board = await store.standings(arena.id)
    for r in board.top:
        assert await store.r.zscore(keys.board(arena.id), r.standing.player) == pack(r.standing)


async def test_active_arenas_and_tick(store, arena, clock):
    later = Arena("t-2", "fours-up", starts=clock.now + 30 * 60_000, duration_ms=60_000)
    far = Arena("t-3", "fours-up", starts=clock.now + 5 * 3_600_000, duration_ms=60_000)
    await store.create(later)
    await store.create(far)
    assert [i.arena.id for i in await store.active()] == ["t-1", "t-2"]
    for p in "ab":
        await store.join(arena.id, p, p)
    assert len(await store.tick(arena)) == 1
    clock.now = arena.ends + arena.grace_ms
    assert await store.tick(arena) == []
    assert (await store.get(arena.id)).finalized == clock.now
    assert [i.arena.id for i in await store.active()] == ["t-2"]


async def test_a_player_absent_from_a_race_is_withdrawn(store, arena, clock):
    """A player who made no move (gone: a closed browser) is not paired again and again
    against those still playing; they are paired again once they join again."""
    race = await formed_pair(store, "a", "b", arena)
    await store.apply(arena.id, race.race, [row("a", 9), row("b", 0, moves=0, at=0)])
    assert [f.player for f in await store.free_players(arena.id, clock.now)] == ["a"]
    assert not await store.is_joined(arena.id, "b")
    assert await store.is_joined(arena.id, "a")
    board = await store.standings(arena.id, player="b")
    assert board.me.standing.points == 0  # in the standings all the same
    await store.join(arena.id, "b", "B")
    assert sorted(f.player for f in await store.free_players(arena.id, clock.now)) == ["a", "b"]
