"""Client failover without a proxy: two `solrace serve` processes on one Redis, the client
given both (as two URLs, or as one host name with two addresses); the process it is
connected to is killed with SIGKILL mid-race and the client goes on on the other one,
within seconds, without losing an acknowledged move. Also `solrace bot` with two `--url`."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time

from scale_play import Played, assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from scale_procs import ROOT, _readline

import client
from client.library import Endpoint, endpoints
from protocol import messages as m
from server.storage.embedded_redis import free_port

MOVES = 60
# How long the survivor may take to ack the first move after the kill: a refused
# connection moves on to the next endpoint at once, so this is mostly the resync.
FAILOVER_S = 5.0


async def _until(pred, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise TimeoutError(what)
        await asyncio.sleep(0.01)


async def _race_through_a_kill(
    servers, redis_url: str, player_urls: list[str] | str, via: tuple[Endpoint, Endpoint]
) -> None:
    """Player 0 connects with `player_urls`, reaching servers[0] first (at endpoint via[0]),
    player 1 to servers[1]; servers[0] is killed after 15 acks of player 0; player 0 must go
    on at via[1] and every ack must survive."""
    p0 = await client.connect(player_urls, name="mover", reconnect=True, backoff_base=0.05, backoff_max=1.0)
    p1 = await client.connect(servers[1].url, name="rival", reconnect=True)
    try:
        assert p0.endpoint == via[0]
        rid = await seated_race([p0, p1], "fours-up")
        played = Played()
        task = asyncio.create_task(play(p0, rid, MOVES, played, pause=0.02))
        await _until(lambda: len(played.acks) >= 15 or task.done(), 30, "15 acks before the kill")
        assert not task.done(), played.errors
        acked_before = len(played.acks)
        servers[0].kill9()
        killed_at = time.monotonic()
        await _until(
            lambda: len(played.acks) > acked_before + 1, FAILOVER_S, "no ack on the survivor in time"
        )
        failover_s = time.monotonic() - killed_at
        await asyncio.wait_for(task, 60)
        assert p0.endpoint == via[1]
        lost = [ev for ev in p0.pending_events() if isinstance(ev, client.ConnectionLost)]
        assert lost, "the client did not notice the kill"
        assert len(played.acks) == MOVES, (len(played.acks), played.errors)
        for c in (p0, p1):
            await finish(c, rid)
        end = await wait_end(p0, rid)
        assert p0.player is not None and p1.player is not None
        assert sorted(r.player for r in end.ranking) == sorted([p0.player, p1.player])
        n, log = await stored_moves(redis_url, rid, p0.player)
        assert_acked_kept(played.acks, n, log)
        assert n == MOVES  # the move resent after the kill was applied once
        print(f"failover: first ack on the survivor {failover_s:.2f} s after the kill")
    finally:
        await p0.close()
        await p1.close()
    assert "Traceback" not in servers[1].log_text()


async def test_two_urls_kill9_of_the_first_mid_race(redis_node, start_server):
    servers = [start_server(redis_node.url), start_server(redis_node.url)]
    urls = [servers[0].url, servers[1].url]
    await _race_through_a_kill(servers, redis_node.url, urls, (Endpoint(urls[0]), Endpoint(urls[1])))


async def test_a_name_with_two_addresses_kill9_of_the_first_mid_race(redis_node, start_server, monkeypatch):
    # Two processes on one port of two loopback addresses, one name for both: what a
    # DNS name with several A records gives. The resolver is the only thing made up.
    port = free_port()
    addresses = ["127.0.0.2", "127.0.0.3"]
    servers = [start_server(redis_node.url, "--host", a, "--port", str(port)) for a in addresses]
    loop = asyncio.get_running_loop()
    real_getaddrinfo = loop.getaddrinfo

    async def getaddrinfo(host, port_, *args, **kw):
        if host == "solrace.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port_)) for a in addresses]
        return await real_getaddrinfo(host, port_, *args, **kw)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    url = f"ws://solrace.test:{port}/ws"
    both = await endpoints([url])
    assert both == [Endpoint(url, a, port) for a in addresses]
    await _race_through_a_kill(servers, redis_node.url, url, (both[0], both[1]))


async def test_bot_with_two_urls_moves_on_after_a_kill(redis_node, start_server, tmp_path):
    servers = [start_server(redis_node.url), start_server(redis_node.url)]
    host = await client.connect(servers[1].url, name="host", reconnect=True)
    bot = None
    try:
        # Created by a player of the other process; the bot is told only its id (and
        # announces the race's game, not the default of --game).
        snap = await host.create("fours-up", seats=2, time_limit_s=120)
        rid = snap.race
        bot = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "bot",
                "--url",
                servers[0].url,
                "--url",
                servers[1].url,
                "--race",
                rid,
                "--strategy",
                "random",
                "--delay-ms",
                "50",
            ],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=open(tmp_path / "bot.err", "wb"),
            start_new_session=True,
        )
        line = await asyncio.to_thread(_readline, bot, 30.0)
        assert line.startswith(f"race {rid}: 1 random bot(s) playing fours-up"), line
        await host.ready(rid)
        await host.wait_for("start", lambda ev: ev.race == rid, timeout=15)
        moves: list[tuple[float, int]] = []  # (when, n) of the bot's progress events

        async def follow() -> None:
            while True:
                ev = await host.wait_for(m.Progress, lambda ev: ev.race == rid and ev.player != host.player)
                moves.append((time.monotonic(), ev.n))

        follower = asyncio.create_task(follow())
        try:
            await _until(lambda: len(moves) >= 10, 30, "the bot made no 10 moves")
            servers[0].kill9()
            killed_at = time.monotonic()
            n_before = moves[-1][1]
            await _until(lambda: moves[-1][1] > n_before + 2, FAILOVER_S, "the bot stopped after the kill")
            print(f"bot failover: moving again {moves[-1][0] - killed_at:.2f} s after the kill")
        finally:
            follower.cancel()
        assert bot.poll() is None, (tmp_path / "bot.err").read_text()
    finally:
        if bot is not None and bot.poll() is None:
            os.killpg(bot.pid, signal.SIGKILL)
            bot.wait(5)
        await host.close()
