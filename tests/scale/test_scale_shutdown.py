"""Graceful shutdown: SIGTERM stops accepting, lands in-flight moves, closes clients with 1012."""

from __future__ import annotations

import asyncio
import socket
import time

from scale_play import Played, assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from waiting import DEADLINE, until, wait_until

import client


def _refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return False
    except OSError:
        return True


async def test_sigterm_drains_and_closes_1012(redis_node, start_server, balancer):
    servers = [start_server(redis_node.url), start_server(redis_node.url)]
    lb = balancer(servers)
    players = [
        await client.connect(lb.url, name=f"p{i}", reconnect=True, backoff_base=0.05, backoff_max=1.0)
        for i in range(4)
    ]
    try:
        leaving = [c for c, picked in zip(players, lb.picked) if picked[1] == servers[0].port]
        assert len(leaving) == 2
        rid = await seated_race(players, "racing-aces")
        results = [Played() for _ in players]
        tasks = [asyncio.create_task(play(c, rid, 40, r, pause=0.005)) for c, r in zip(players, results)]
        await until(lambda: all(len(r.acks) >= 10 for r in results), what="10 moves each")
        # Hold Redis for a moment so that moves are in flight when the signal lands (long
        # enough for a slow machine to see the listener closed before the drain can end).
        with redis_node.client() as r:
            r.execute_command("CLIENT", "PAUSE", 2000, "ALL")
        await asyncio.sleep(0.1)  # not a wait: the players send moves that Redis holds
        t0 = time.monotonic()
        servers[0].term()
        # stop accepting at once, while the process is still draining
        port = servers[0].port
        await asyncio.to_thread(wait_until, lambda: _refused(port), what="new connections refused")
        assert servers[0].alive()
        await asyncio.to_thread(servers[0].proc.wait, DEADLINE)
        assert servers[0].proc.returncode == 0
        assert time.monotonic() - t0 < 10
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        for c in leaving:
            lost = [ev for ev in c.pending_events() if isinstance(ev, client.ConnectionLost)]
            assert [ev.code for ev in lost] == [1012], lost
        for res in results:
            # the moves in flight at the signal were acknowledged (or resent and re-acked),
            # never refused: a graceful restart costs the players nothing but a reconnect
            assert len(res.acks) == 40 and "internal" not in res.errors, res.errors
        log = servers[0].log_text()
        assert "shutting down" in log and "Traceback" not in log
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players]
        assert all(e.ranking == ends[0].ranking for e in ends)
        for c, res in zip(players, results):
            n, stored = await stored_moves(redis_node.url, rid, c.player)
            assert_acked_kept(res.acks, n, stored)
            assert n == 40
    finally:
        for c in players:
            await c.close()
