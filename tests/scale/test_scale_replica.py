"""A Redis primary with a replica and a sentinel: acknowledged moves survive the primary's loss.

Real processes: a primary redis-server, a replica of it, one Redis Sentinel
watching them (quorum 1), and `solrace serve --redis redis+sentinel://…
--redis-wait-replicas 1`. Players race; the primary is killed with SIGKILL
mid-race; the sentinel promotes one of its two replicas; the server finds it through
the sentinel and the race goes on. Every acknowledged move must be in the
promoted replica's logs, and a move the replica has not got is never
acknowledged (the replica stopped with SIGSTOP: the move fails instead).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest
from scale_play import Played, assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from scale_procs import Procs, RedisNode, _wait_port
from waiting import until, wait_until

import client
from client.bots.strategies import GreedyStrategy
from server.config import Settings
from server.storage import Store
from server.storage.embedded_redis import free_port, redis_server_binary
from server.storage.failover import NotReplicated
from server.storage.keys import void_key

SERVICE = "solrace"


def replica_of(procs: Procs, base: Path, primary: RedisNode, name: str = "replica") -> RedisNode:
    replica = RedisNode(procs, base / name).start()
    r = replica.client()
    r.replicaof("127.0.0.1", primary.port)

    wait_until(lambda: r.info("replication").get("master_link_status") == "up", what="the replica in sync")
    return replica


def start_sentinel(procs: Procs, base: Path, primary: RedisNode) -> int:
    folder = base / "sentinel"
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = folder / "sentinel.conf"
    # Down after 3 s without an answer: a primary (appendfsync always) stalled by a loaded
    # machine for a second or two is not failed over before the test kills it; the kill's
    # failover still comes within seconds, far inside the test's 200 s wait.
    conf.write_text(
        f"port {port}\nbind 127.0.0.1\ndir {folder}\nlogfile sentinel.log\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {primary.port} 1\n"
        f"sentinel down-after-milliseconds {SERVICE} 3000\n"
        f"sentinel failover-timeout {SERVICE} 5000\n"
    )
    proc = procs.add(
        subprocess.Popen(
            [redis_server_binary(), str(conf), "--sentinel"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    )
    _wait_port("127.0.0.1", port, proc, 20.0)
    return port


# Alone it takes seconds; the failover's own timers (sentinel, reconnects) stretch on a
# loaded machine, so the inner wait gets its own bound under this one.
@pytest.mark.timeout(300)
async def test_acked_moves_survive_the_primarys_loss(procs, tmp_path, start_server):
    primary = RedisNode(procs, tmp_path / "primary").start()
    # Two replicas: after the failover one of them still replicates the new primary, so moves
    # that wait for one replica can be acknowledged again.
    replicas = [replica_of(procs, tmp_path, primary, f"replica{i}") for i in range(2)]
    sentinel = start_sentinel(procs, tmp_path, primary)
    url = f"redis+sentinel://127.0.0.1:{sentinel}/{SERVICE}/0"
    srv = start_server(url, "--redis-wait-replicas", "1", "--bot-workers", "0", "--certify-workers", "0")
    players = [await client.connect(srv.url, name=f"p{i}", reconnect=True) for i in range(2)]
    try:
        rid = await seated_race(players, "racing-aces")
        results = [Played() for _ in players]
        tasks = [asyncio.create_task(play(c, rid, 40, res, pause=0.01)) for c, res in zip(players, results)]
        await until(lambda: all(len(r.acks) >= 10 for r in results), what="10 moves each")
        primary.kill9()  # acknowledged moves are on the replica too (WAIT 1)
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 200)
        except TimeoutError:
            log = (tmp_path / "sentinel" / "sentinel.log").read_text(errors="replace")[-3000:]
            acks = [len(r.acks) for r in results]
            errors = [r.errors[-5:] for r in results]
            raise AssertionError(f"the race did not go on: acks {acks}, errors {errors}\n{log}") from None
        assert all(len(r.acks) == 40 for r in results), [len(r.acks) for r in results]
        roles = [r.client().info("replication")["role"] for r in replicas]
        assert "master" in roles, roles  # one was promoted by the sentinel
        promoted = replicas[roles.index("master")]
        for c, res in zip(players, results):
            n, log = await stored_moves(promoted.url, rid, c.player)
            assert_acked_kept(res.acks, n, log)
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid, timeout=60) for c in players]
        assert ends[0].ranking == ends[1].ranking
    finally:
        for c in players:
            await c.close()
    assert srv.alive()


async def test_no_ack_for_a_move_or_a_race_change_the_replica_lacks(procs, tmp_path, start_server):
    primary = RedisNode(procs, tmp_path / "primary").start()
    replica = replica_of(procs, tmp_path, primary)
    srv = start_server(
        primary.url, "--redis-wait-replicas", "1", "--redis-wait-timeout-ms", "300", "--bot-workers", "0"
    )
    players = [await client.connect(srv.url, name=f"p{i}") for i in range(2)]
    assert replica.proc is not None
    try:
        rid = await seated_race(players, "racing-aces")
        before = await play(players[0], rid, 3)
        assert len(before.acks) == 3
        os.killpg(replica.proc.pid, signal.SIGSTOP)  # the replica stops taking the stream
        try:
            board = players[0].board(rid)
            mv = GreedyStrategy().choose(board.view)
            assert mv is not None
            try:
                ack = await players[0].move(rid, mv, timeout=30)
            except client.ServerError as exc:
                assert exc.code == "internal", exc
            else:
                raise AssertionError(f"acknowledged without the replica: {ack}")
            # Nor is a change of a race's record (here a new race: its creation's commit).
            try:
                snap = await players[1].create("racing-aces", seats=2)
            except client.ServerError as exc:
                assert exc.code == "internal", exc
            else:
                raise AssertionError(f"a race created without the replica: {snap.race}")
        finally:
            os.killpg(replica.proc.pid, signal.SIGCONT)
        # With the replica back, race changes are acknowledged again.
        again = await players[1].create("racing-aces", seats=2)
        assert again.race
        # Once the replica is back the same move number is acknowledged (a duplicate or applied once).
        after = await play(players[0], rid, 3)
        assert len(after.acks) == 3
        n, log = await stored_moves(primary.url, rid, players[0].player)
        assert_acked_kept(before.acks + after.acks, n, log)
    finally:
        for c in players:
            await c.close()


async def test_a_give_up_mark_the_replica_lacks_is_no_answer(procs, tmp_path):
    """A create or join that failed part-way is given up by a mark (`load_race` with `void`):
    its commit, still on its way, is then refused. A mark on the primary only would be lost
    with it, and the promoted replica would take that late commit, seating a player told "no
    effect". With --redis-wait-replicas a mark not replicated in time is no answer
    (NotReplicated): the caller asks again until it is (handlers/seating.py)."""
    primary = RedisNode(procs, tmp_path / "primary").start()
    replica = replica_of(procs, tmp_path, primary)
    assert replica.proc is not None
    settings = Settings(redis=primary.url, redis_wait_replicas=1, redis_wait_timeout_ms=300)
    store = Store(primary.url, settings)
    await store.start()
    rid, joined = "r" + "0" * 15 + "1", "r" + "0" * 15 + "2"
    try:
        os.killpg(replica.proc.pid, signal.SIGSTOP)
        try:
            with pytest.raises(NotReplicated):
                await store.load_race(rid, void=True)
            with pytest.raises(NotReplicated):
                await store.load_race(joined, void=True, attempt="a-join-token")
        finally:
            os.killpg(replica.proc.pid, signal.SIGCONT)
        # Asked again once the replica takes writes: the answer, and the mark on the replica.
        assert (await store.load_race(rid, void=True))[1] is None
        assert replica.client().exists(void_key(rid))
    finally:
        await store.close()
