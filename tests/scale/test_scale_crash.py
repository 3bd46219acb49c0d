"""Crashes: kill -9 of a server process mid-race, kill -9 of redis-server (and a lost AOF tail)."""

from __future__ import annotations

import asyncio
import shutil

from scale_play import Played, assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from scale_procs import RedisNode
from waiting import until

import client


async def _play_in_background(players, rid, count, pause):
    results = [Played() for _ in players]
    tasks = [asyncio.create_task(play(c, rid, count, res, pause=pause)) for c, res in zip(players, results)]
    return results, tasks


async def test_kill9_server_mid_race(redis_node, start_server, balancer):
    servers = [start_server(redis_node.url), start_server(redis_node.url)]
    lb = balancer(servers)
    players = [
        await client.connect(lb.url, name=f"p{i}", reconnect=True, backoff_base=0.05, backoff_max=1.0)
        for i in range(4)
    ]
    try:
        victims = [c for c, picked in zip(players, lb.picked) if picked[1] == servers[0].port]
        assert len(victims) == 2  # round robin: two players on each process
        rid = await seated_race(players, "racing-aces")
        results, tasks = await _play_in_background(players, rid, 40, pause=0.01)
        await until(lambda: all(len(r.acks) >= 10 for r in results), what="10 moves each")
        servers[0].kill9()  # no goodbye: sockets just die, in-flight moves may or may not have landed
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        for c in victims:
            lost = [ev for ev in c.pending_events() if isinstance(ev, client.ConnectionLost)]
            assert lost, "a player of the killed process did not notice"
        assert all(len(r.acks) == 40 for r in results), [len(r.acks) for r in results]
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players]
        assert all(e.ranking == ends[0].ranking for e in ends)
        assert sorted(r.player for r in ends[0].ranking) == sorted(c.player for c in players)
        for c, res in zip(players, results):
            n, log = await stored_moves(redis_node.url, rid, c.player)
            assert_acked_kept(res.acks, n, log)
            assert n == 40  # the resent moves were applied once (same n), not twice
    finally:
        for c in players:
            await c.close()
    assert "Traceback" not in servers[1].log_text()


async def test_kill9_redis_with_appendfsync_always(redis_node, start_server):
    servers = [start_server(redis_node.url), start_server(redis_node.url)]
    players = [await client.connect(servers[i % 2].url, name=f"p{i}") for i in range(4)]
    try:
        rid = await seated_race(players, "racing-aces")
        results, tasks = await _play_in_background(players, rid, 40, pause=0.01)
        await until(lambda: all(len(r.acks) >= 10 for r in results), what="10 moves each")
        redis_node.kill9()
        await asyncio.sleep(0.5)  # not a wait: moves meanwhile get `internal` (no effect); nothing hangs
        redis_node.start()  # same port, same AOF
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(len(r.acks) == 40 for r in results)
        assert any("internal" in r.errors for r in results)  # the outage was felt
        # no acknowledged move was lost
        for c, res in zip(players, results):
            n, log = await stored_moves(redis_node.url, rid, c.player)
            assert_acked_kept(res.acks, n, log)
        # and the race goes on and ends normally on both processes
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players]
        assert all(e.ranking == ends[0].ranking for e in ends)
    finally:
        for c in players:
            await c.close()
    for s in servers:
        assert s.alive()


async def test_lost_aof_tail_recovers_by_resync(procs, tmp_path, start_server):
    """What `appendfsync everysec` can cost on a machine crash: the last acknowledged writes.

    Simulated exactly: the AOF is copied mid-race, more moves are acknowledged,
    redis-server is killed and restarted on the old copy. The clients are then
    ahead of Redis; their next move gets `out-of-sync` + `state` and they carry
    on from the stored position: the race stays consistent (no corruption),
    only the lost moves are gone.
    """
    node = RedisNode(procs, tmp_path / "redis", appendfsync="everysec").start()
    srv = start_server(node.url)
    players = [await client.connect(srv.url, name=f"p{i}") for i in range(2)]
    try:
        rid = await seated_race(players, "racing-aces")
        before = [await play(c, rid, 10) for c in players]
        # every acknowledged write is in the file already: Redis appends to it before it replies
        aof = node.dir / "appendonly.aof"
        saved = tmp_path / "saved.aof"
        shutil.copy(aof, saved)
        lost = [await play(c, rid, 5) for c in players]  # acknowledged, then "lost"
        node.kill9()
        shutil.copy(saved, aof)
        node.start()
        after = []
        for c, b in zip(players, before):
            n, _log = await stored_moves(node.url, rid, c.player)
            assert n == len(b.acks)  # the tail is gone...
            res = await play(c, rid, 5)  # ...the client notices (out-of-sync), resyncs, plays on
            assert "out-of-sync" in res.errors or "internal" in res.errors
            n2, _log = await stored_moves(node.url, rid, c.player)
            assert c.board(rid).n == n2  # client and Redis agree again
            # (5 acks, or 4 and a duplicate re-ack: a `state` sent after an out-of-sync may
            # reach the client after the ack of its next move; it then replays that move)
            assert n2 >= n + 4
            after.append(res)
        for c, b, a in zip(players, before, after):
            n, log = await stored_moves(node.url, rid, c.player)
            assert_acked_kept(b.acks + a.acks, n, log)
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players]
        assert ends[0].ranking == ends[1].ranking
        assert all(14 <= r.moves <= 15 for r in ends[0].ranking)
        assert all(len(x.acks) == 5 for x in lost)
    finally:
        for c in players:
            await c.close()
    assert srv.alive()


async def test_private_redis_fsync_setting(tmp_path):
    """`solrace serve` without --redis: --redis-fsync sets the private redis-server's appendfsync."""
    import redis.asyncio as aioredis

    from server.app import App
    from server.config import Settings

    app = App(Settings(port=0, data=str(tmp_path / "data"), redis_fsync="always"))
    await app.start()
    try:
        assert app.redis_proc is not None
        r = aioredis.Redis.from_url(app.redis_proc.url)
        assert await r.config_get("appendfsync") == {"appendfsync": "always"}
        assert await r.config_get("appendonly") == {"appendonly": "yes"}
        await r.aclose()
    finally:
        await app.stop()
