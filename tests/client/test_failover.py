"""Several servers for one client (the library's failover), against in-process fake servers.

Two fake servers sharing their sessions and races stand for two processes on one
Redis. tests/scale/test_scale_failover.py does the same with real `solrace serve`
processes killed with SIGKILL.
"""

from __future__ import annotations

import socket

import pytest
from fake_server import FakeServer, wait_until

import client
from client.bots.board import visible_game
from client.library import Endpoint, Reconnected, Unreachable, endpoints


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{s.getsockname()[1]}/ws"


async def play_one(c: client.Client, race: str) -> None:
    board = c.board(race)
    await c.move(race, visible_game(board.view).legal_moves()[0])


def share(a: FakeServer, b: FakeServer) -> None:
    """b answers for the same sessions and races as a (one Redis behind both)."""
    b.tokens = a.tokens
    b.races = a.races
    b.ids = a.ids


async def test_open_passes_over_a_dead_url() -> None:
    dead = closed_url()
    async with FakeServer() as srv:
        async with client.connect([dead, srv.url], name="ada") as c:
            assert c.url == srv.url and c.endpoint == Endpoint(srv.url)
            assert c.urls == [dead, srv.url]
            await c.ping()


async def test_nothing_answers_names_every_endpoint() -> None:
    urls = [closed_url(), closed_url()]
    with pytest.raises(Unreachable) as info:
        await client.connect(urls, name="ada").open()
    assert [ep.url for ep, _exc in info.value.failures] == urls
    assert all(u in str(info.value) for u in urls)
    assert isinstance(info.value, OSError)  # callers catching OSError keep working
    assert isinstance(info.value.__cause__, OSError)


async def test_a_single_url_still_works_as_a_string() -> None:
    async with FakeServer() as srv:
        async with client.connect(srv.url, name="ada") as c:
            assert c.urls == [srv.url]


async def test_no_url_is_an_error() -> None:
    with pytest.raises(ValueError):
        client.connect([])


async def test_bad_token_ends_the_round_at_once() -> None:
    async with FakeServer() as a, FakeServer() as b:
        with pytest.raises(client.ServerError) as info:
            await client.connect([a.url, b.url], token="not-a-session").open()
        assert info.value.code == "bad-token"
        assert b.frames_in == []  # every process would say the same: not asked


async def test_after_a_drop_the_next_endpoint_comes_first_and_the_session_resumes() -> None:
    async with FakeServer() as a, FakeServer() as b:
        share(a, b)
        c = await client.connect([a.url, b.url], name="ada", reconnect=True, backoff_base=0.01)
        try:
            player = c.player
            snap = await c.create("fours-up", seats=1)
            await c.ready(snap.race)
            await c.wait_for("start", lambda ev: ev.race == snap.race)
            await play_one(c, snap.race)
            await a.kick_all()  # a is still up: the client goes to b anyway, a was the one lost
            await c.wait_for(Reconnected, timeout=5)
            assert c.endpoint == Endpoint(b.url) and c.player == player
            await play_one(c, snap.race)  # the race goes on on b
            assert c.board(snap.race).n == 2
            await wait_until(lambda: player in b.conns and b.conns[player], 5)
            await b.kick_all()  # and back to a
            await c.wait_for(Reconnected, timeout=5)
            assert c.endpoint == Endpoint(a.url) and c.player == player
        finally:
            await c.close()


async def test_endpoints_keep_urls_that_do_not_resolve_or_parse_whole() -> None:
    urls = ["ws://127.0.0.1:1/ws", "ws://no-such-host.invalid:1/ws", "not a url"]
    assert await endpoints(urls) == [Endpoint(u) for u in urls]


async def test_a_web_page_address_stands_for_its_servers_socket() -> None:
    from client.library.endpoints import websocket_url

    assert websocket_url("http://h:8765/") == "ws://h:8765/ws"
    assert websocket_url("http://h:8765") == "ws://h:8765/ws"
    assert websocket_url("https://h/#race=r1") == "wss://h/ws"
    assert websocket_url("http://h:8765/ws") == "ws://h:8765/ws"
    assert websocket_url("ws://h:1/ws") == "ws://h:1/ws"
    async with FakeServer() as srv:
        page = srv.url.replace("ws://", "http://").removesuffix("ws")
        async with client.connect(page, name="ada") as c:
            assert c.endpoint == Endpoint(srv.url)
            await c.ping()
