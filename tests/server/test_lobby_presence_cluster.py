"""Lobby presence (server/handlers/presence.py) on a real 3-master Redis Cluster: two server
processes, the away clock's keys (the race's ``{race:ID}:away``, the shared timers, the players'
connection counts) spread over the nodes, and nothing that spans slots."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from local_cluster import LocalCluster
from must import must_be
from test_lobby_presence import (
    abandoned_lobby_is_unlisted_then_given_back,
    bot_alone_in_a_lobby_is_nobody_waiting,
    listed,
    released,
    seated,
)
from waiting import until
from wsclient import Raw, player

from server.storage import keys
from server.storage.sessions import conns_key, player_conns_name

pytestmark = pytest.mark.timeout(180)

GAME = "fours-up"
AWAY_MS = 300


async def test_an_abandoned_lobby_is_unlisted_then_given_back_across_processes(cluster_url, make_server):
    await abandoned_lobby_is_unlisted_then_given_back(make_server, redis=cluster_url)


async def test_a_return_restarts_the_clocks_of_lobbies_on_several_nodes(
    cluster: LocalCluster, cluster_url: str, make_server
):
    """ada's lobbies live on different nodes: her hello on the other process clears all their
    away marks (one key per command, each routed to its node), and they are listed again."""
    away_ms = 5000  # room for the hello below on a loaded machine
    app1, app2 = (
        await make_server(redis=cluster_url, lobby_away_ms=away_ms),
        await make_server(redis=cluster_url, lobby_away_ms=away_ms),
    )
    ada = await player(app1.ws_url, "ada")
    eve = await player(app2.ws_url, "eve")
    rids: list[str] = []
    while len({cluster.node_of(keys.away_key(rid)) for rid in rids}) < 2:
        rids.append((await ada.request("create", game=GAME))["race"])
    token = ada.token
    await ada.close()
    r = app1.store.redis

    async def all_marked() -> bool:
        return all([await r.exists(keys.away_key(rid)) for rid in rids])

    async def none_listed() -> bool:
        return not set(rids) & await listed(eve)

    await until(all_marked, what="every lobby's away mark")
    await until(none_listed, what="the lobbies left the list")
    back = await Raw.open(app2.ws_url)
    assert sorted((await back.hello(token=token))["races"]) == sorted(rids)
    for rid in rids:
        assert not await r.exists(keys.away_key(rid))
    assert set(rids) <= await listed(eve)
    for rid in rids:
        assert await seated(app1, rid) == [back.player]
    await asyncio.gather(back.close(), eve.close())


async def test_a_person_still_connected_keeps_the_lobby(cluster_url, make_server):
    """The host leaves; bob, seated too and connected to the other process, keeps it listed:
    the clock reads both players' counts (keys on their own slots) in one round trip."""
    app1 = await make_server(redis=cluster_url, lobby_away_ms=AWAY_MS)
    app2 = await make_server(redis=cluster_url, lobby_away_ms=AWAY_MS)
    ada, bob = await player(app1.ws_url, "ada"), await player(app2.ws_url, "bob")
    eve = await player(app1.ws_url, "eve")
    rid = (await ada.request("create", game=GAME, seats=3))["race"]
    assert (await bob.request("join", race=rid))["t"] == "race"
    await ada.close()

    async def ada_gone() -> bool:
        return not await app2.store.sessions.connected([ada.player])

    await until(ada_gone, what="ada's connection left the counts")
    gone_at = app1.service.now_ms()

    async def looked_since() -> bool:
        when = await app1.store.scheduled_at(rid)
        return when is not None and when > gone_at + AWAY_MS

    await until(looked_since, what="the clock looked after ada left and found bob")
    assert await seated(app1, rid) == [ada.player, bob.player]
    assert rid in await listed(eve)
    await asyncio.gather(bob.close(), eve.close())


async def test_a_bot_alone_in_a_lobby_is_given_back_too(cluster_url, make_server):
    await bot_alone_in_a_lobby_is_nobody_waiting(make_server, redis=cluster_url)


async def test_a_lobby_of_a_process_that_died_is_given_back_by_another(
    cluster_url, make_server, serve_process
):
    """Its connections count until their counts lapse (30 s, hurried here by moving their
    expiry, on whichever node it is), then the live process's sweeper gives the seat back."""
    app = await make_server(redis=cluster_url, lobby_away_ms=AWAY_MS)
    url, proc = serve_process("--redis", cluster_url, "--lobby-away-ms", str(AWAY_MS))  # the last --redis
    ada, eve = await player(url, "ada"), await player(app.ws_url, "eve")
    rid = (await ada.request("create", game=GAME))["race"]
    assert rid in await listed(eve)
    os.kill(proc.pid, signal.SIGKILL)  # no close, no clean-up: the process is gone
    await asyncio.to_thread(proc.wait)
    await asyncio.gather(ada.close(), return_exceptions=True)
    r = app.store.redis
    assert rid in await listed(eve)  # the dead process's count of ada still holds
    key = conns_key(player_conns_name(ada.player))
    fields = await r.hgetall(key)
    assert fields, "ada's connection was counted"
    await r.hset(key, mapping={f: 0 for f in fields if must_be(f, bytes).endswith(b":t")})  # lapsed

    async def given_back() -> bool:
        return rid not in await listed(eve) and await seated(app, rid) == []

    await until(given_back, what="the dead process's lobby unlisted and given back by the live one")
    await until(lambda: released(app) == 1, what="counted where it was done")
    await eve.close()
