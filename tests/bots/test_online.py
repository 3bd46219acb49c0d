"""Bots against a real server on 127.0.0.1 (fixtures from tests/conftest.py):
a whole race played through the protocol, from the bots' own boards."""
from __future__ import annotations

import pytest

from client.bots.online import run_bots
from client.bots.strategies import make
from protocol import messages as m
from protocol import rules

pytestmark = pytest.mark.timeout(60)


async def test_three_bots_play_a_whole_race(ws_url: str) -> None:
    strategies = [make("greedy"), make("search", nodes=100), make("random", seed=3, max_moves=150)]
    races: list[str] = []
    results = await run_bots(ws_url, "fours-up", strategies, time_limit_s=60, on_race=races.append)
    assert len(races) == 1
    total = rules.GAMES["fours-up"].total
    assert sorted(r.rank for r in results) == [1, 2, 3]
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
