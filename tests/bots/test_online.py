"""Bots against a real server on 127.0.0.1 (fixtures from tests/conftest.py):
a whole race played through the protocol, from the bots' own boards."""

from __future__ import annotations

import asyncio
import threading

import pytest
from must import must
from waiting import wait_until

import client
from client.bots.online import run_bots
from client.bots.strategies import GreedyStrategy, make
from protocol import messages as m
from protocol import rules

pytestmark = pytest.mark.timeout(60)


async def test_three_bots_play_a_whole_race(ws_url: str) -> None:
    strategies = [make("greedy"), make("search", nodes=100), make("random", seed=3, max_moves=150)]
    races: list[str] = []
    results = await run_bots(ws_url, "fours-up", strategies, time_limit_s=60, on_race=races.append)
    assert len(races) == 1
    total = rules.GAMES["fours-up"].total
    assert sorted(r.rank for r in results if r.rank is not None) == [1, 2, 3]
    for r in results:
        assert r.race == races[0]
        assert r.errors == [], r
        assert r.total == total and 0 < r.home <= total
        assert r.status in (m.PlayerStatus.WON, m.PlayerStatus.FINISHED)
        assert r.moves > 0


async def test_bots_quick_match(ws_url: str) -> None:
    results = await run_bots(ws_url, "racing-aces", [make("greedy"), make("greedy")], quick=True)
    assert results[0].race == results[1].race
    # Identical games may tie (same home, moves and times), so ranks may be equal.
    assert all(r.rank in (1, 2) for r in results)
    # Same deal, same deterministic strategy: the same game.
    assert results[0].home == results[1].home and results[0].moves == results[1].moves


class _Recording(GreedyStrategy):
    """Greedy, noting the thread of every choice; on its ``drop_at``-th
    choice it also cuts its client's connection (as a network failure would)."""

    def __init__(self, drop_at: int | None = None) -> None:
        super().__init__()
        self.threads: set[int] = set()
        self.calls = 0
        self.drop_at = drop_at
        self.client: client.Client | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def choose(self, position):
        self.threads.add(threading.get_ident())
        self.calls += 1
        if self.calls == self.drop_at and self.client is not None:
            ws = must(self.client._ws)  # the live socket, to abort it like a dropped network
            must(self.loop).call_soon_threadsafe(ws.transport.abort)
            # the move below is sent once the client has seen the drop (while it reconnects)
            c = self.client
            wait_until(lambda: c._ws is not ws, what="the drop noticed")
        return super().choose(position)


async def test_choices_run_off_the_event_loop_and_survive_a_drop(ws_url: str, monkeypatch) -> None:
    loop = asyncio.get_running_loop()
    dropper, other = _Recording(drop_at=4), _Recording()
    made: list[client.Client] = []
    connect = client.connect

    def recording_connect(url, **kwargs):
        assert kwargs.get("reconnect") is True
        c = connect(url, backoff_base=0.05, backoff_max=0.2, **kwargs)
        made.append(c)
        if len(made) == 1:
            dropper.client, dropper.loop = c, loop
        return c

    monkeypatch.setattr(client, "connect", recording_connect)
    results = await run_bots(ws_url, "fours-up", [dropper, other], time_limit_s=60)
    # The search is CPU work: it must not run on the loop that serves every bot.
    assert threading.get_ident() not in dropper.threads | other.threads
    assert dropper.calls > 4
    for r in results:
        assert r.errors == [], r
        assert r.status in (m.PlayerStatus.WON, m.PlayerStatus.FINISHED)
        assert r.moves > 4


async def test_bots_wait_out_the_rate_limit_and_finish(make_server) -> None:
    # A server with few message credits: greedy bots outrun them at once and
    # must wait as told (retry_ms) rather than give up mid-game.
    srv = await make_server(rate=20, burst=5)
    results = await run_bots(srv.ws_url, "racing-aces", [make("greedy")], time_limit_s=60)
    [r] = results
    assert r.errors == [], r
    assert r.status in (m.PlayerStatus.WON, m.PlayerStatus.FINISHED)
    assert r.moves > 5
