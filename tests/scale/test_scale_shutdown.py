"""Graceful shutdown: SIGTERM stops accepting, lands in-flight moves, closes clients with 1012."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
import urllib.request

import pytest
from scale_play import Played, _resync, assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from waiting import DEADLINE, until, wait_until

import client
from client.bots.board import visible_game


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=DEADLINE) as r:
        return r.read().decode()


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


async def test_a_stalled_redis_fails_moves_in_time_and_a_stop_does_not_wait_for_it(redis_node, start_server):
    """operations.md §7 and §8: a Redis that stops answering (SIGSTOP: it still accepts
    connections) costs a move `internal` after --redis-timeout-s, not a wait as long as the
    stall; once it answers again moves go through; and SIGTERM during a stall still exits
    within the 10 s grace period."""
    server = start_server(redis_node.url, "--redis-timeout-s", "1")
    players = [await client.connect(server.url, name=f"p{i}") for i in range(2)]
    assert redis_node.proc is not None
    redis_pid = redis_node.proc.pid
    try:
        rid = await seated_race(players, "fours-up")
        c = players[0]
        board = c.board(rid)
        first = visible_game(board.view).legal_moves()[0]
        await c.move(rid, first, timeout=DEADLINE)
        os.kill(redis_pid, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            with pytest.raises(client.ServerError) as refused:
                await c.move(rid, visible_game(board.view).legal_moves()[0], timeout=DEADLINE)
            assert refused.value.code == "internal"
            assert time.monotonic() - t0 >= 1.0  # the reply timeout, not at once
            # The next move takes the slow path (the cache was dropped): its load fails too.
            with pytest.raises(client.ServerError) as refused:
                await c.move(rid, visible_game(board.view).legal_moves()[0], timeout=DEADLINE)
            assert refused.value.code == "internal"
        finally:
            os.kill(redis_pid, signal.SIGCONT)
        # Both count as refused moves, not only as errors (operations.md §10).
        metrics = await asyncio.to_thread(_get, server.http_url + "metrics")
        assert 'solrace_moves_total{result="refused",reason="internal"} 2' in metrics
        await _resync(c, rid)
        played = await play(c, rid, 1)
        assert len(played.acks) == 1, played.errors

        # A stop while Redis is stalled: the process must not wait for Redis to come back.
        os.kill(redis_pid, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            server.term()
            await asyncio.to_thread(server.proc.wait, DEADLINE)
            assert server.proc.returncode == 0
            stopped_in = time.monotonic() - t0
            assert stopped_in < 10, stopped_in
        finally:
            os.kill(redis_pid, signal.SIGCONT)
    finally:
        for p in players:
            await p.close()
    log = server.log_text()
    assert "answered nothing for 1 s" in log and "Traceback" not in log
