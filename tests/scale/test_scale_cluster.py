"""A real 3-master Redis Cluster on loopback, two server processes, races across it."""

from __future__ import annotations

import asyncio

import redis
from must import must_be
from redis.crc import key_slot
from scale_play import assert_acked_kept, finish, move_seen, play, seated_race, wait_end
from scale_procs import start_cluster
from waiting import DEADLINE, until

import client
from protocol import messages as m
from server import storage as S


def _owner(nodes, key: str) -> int:
    """Index of the node that serves `key`'s slot."""
    slot = key_slot(key.encode())
    with nodes[0].client() as r:
        for start, end, master, *_ in r.execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                port = int(master[1])
                return next(i for i, n in enumerate(nodes) if n.port == port)
    raise AssertionError("slot not covered")


def _migrate_slot(nodes, key: str, to: int) -> None:
    """Move the slot of `key` (and its keys) to node `to`, the way a resharding does."""
    slot = key_slot(key.encode())
    src = nodes[_owner(nodes, key)]
    dst = nodes[to]
    ids = {}
    for n in nodes:
        with n.client() as r:
            ids[n.port] = r.execute_command("CLUSTER", "MYID").decode()
    with dst.client() as d, src.client() as s:
        d.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[src.port])
        s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[dst.port])
        while True:
            keys = s.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100)
            if not keys:
                break
            s.execute_command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, "KEYS", *keys)
    for n in nodes:
        with n.client() as r:
            r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[dst.port])


def _race_keys_by_node(nodes, rid: str) -> dict[int, list[bytes]]:
    out: dict[int, list[bytes]] = {}
    for i, n in enumerate(nodes):
        with n.client() as r:
            keys = [k for k in r.scan_iter(match=f"{{race:{rid}}}*")]
        if keys:
            out[i] = keys
    return out


async def test_races_across_a_cluster(procs, tmp_path, start_server):
    nodes = start_cluster(procs, tmp_path / "cluster")
    url = "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in nodes[:2])  # any seed nodes will do
    servers = [start_server(url), start_server(url)]
    # four races of two players, each race split over the two processes
    pairs = []
    for k in range(4):
        a = await client.connect(servers[0].url, name=f"a{k}")
        b = await client.connect(servers[1].url, name=f"b{k}")
        pairs.append((a, b))
    try:
        rids = [await seated_race([a, b], "racing-aces") for a, b in pairs]
        # live progress crosses processes (pub/sub is cluster-wide)
        results = await asyncio.gather(
            *(play(c, rid, 15) for (a, b), rid in zip(pairs, rids) for c in (a, b))
        )
        for (a, b), rid in zip(pairs, rids):
            last = a.board(rid).n
            await b.wait_for(m.Progress, move_seen(rid, a.player, last), timeout=DEADLINE)
        # resharding mid-race: the slot of race 0 moves to another node; moves follow (MOVED)
        a0, b0 = pairs[0]
        old = _owner(nodes, S.race_key(rids[0]))
        _migrate_slot(nodes, S.race_key(rids[0]), (old + 1) % 3)
        assert _owner(nodes, S.race_key(rids[0])) == (old + 1) % 3
        extra = await asyncio.gather(play(a0, rids[0], 5), play(b0, rids[0], 5))
        for k, more in enumerate(extra):
            results[k].acks.extend(more.acks)
            assert len(more.acks) == 5 and not more.errors, more.errors
        # the race list (one LOAD per race, on its own node) and spectating work in cluster mode
        watcher = await client.connect(servers[1].url, name="watcher")
        listed = await watcher.races("racing-aces")
        assert set(rids) <= {r.race for r in listed.races}
        await watcher.spectate(rids[0])
        # a session resumes on the other process
        again = await client.connect(servers[1].url, token=a0.token)
        assert again.player == a0.player and rids[0] in again.welcome.races
        await again.close()
        for a, b in pairs:
            for rid in rids:
                if rid in a.boards:
                    await finish(a, rid)
                    await finish(b, rid)
        for (a, b), rid in zip(pairs, rids):
            end_a = await wait_end(a, rid)
            end_b = await wait_end(b, rid)
            assert end_a.ranking == end_b.ranking and end_a.seed
        await wait_end(watcher, rids[0])
        await watcher.close()
        # every key of a race sits on one node; the races are spread over the nodes
        for rid in rids:
            by_node = _race_keys_by_node(nodes, rid)
            assert len(by_node) == 1, by_node
            ((node, keys),) = by_node.items()
            assert node == _owner(nodes, S.race_key(rid))
            assert len(keys) >= 6  # record, event stream, two player hashes, two move logs
        # each acknowledged move is stored (read through a cluster client)
        rc = redis.RedisCluster(host="127.0.0.1", port=nodes[0].port)
        try:
            i = 0
            for (a, b), rid in zip(pairs, rids):
                for c in (a, b):
                    pid = c.player
                    log = [
                        must_be(e, bytes).decode().split(" ", 2)[2]
                        for e in rc.lrange(S.log_key(rid, pid), 0, -1)
                    ]
                    n = int(must_be(rc.hget(S.player_key(rid, pid), "n"), bytes))
                    assert_acked_kept(results[i].acks, n, log)
                    assert len(results[i].acks) == (20 if i < 2 else 15)
                    i += 1
            # non-race keys work too: sessions, seats, the timer index, the public index
            assert rc.exists(S.profile_key(a0.player))
            # an ended race's timer goes last, after the end's follow-up
            await until(lambda: rc.zcard(S.TIMERS) == 0, what="every ended race's timer removed")
        finally:
            rc.close()
        # quick-match across the two processes, on the cluster
        q1 = await client.connect(servers[0].url, name="q1")
        q2 = await client.connect(servers[1].url, name="q2")
        await q1.quick("fours-up")
        await q2.quick("fours-up")
        s1 = await q1.wait_for("start", timeout=DEADLINE)
        s2 = await q2.wait_for("start", timeout=DEADLINE)
        assert s1.race == s2.race and s1.view == s2.view
        await q1.close()
        await q2.close()
    finally:
        for a, b in pairs:
            await a.close()
            await b.close()
    for s in servers:
        assert "Traceback" not in s.log_text(), s.log_text()[-3000:]
    assert any("moved to" in s.log_text() for s in servers)  # the move pipe followed a MOVED
