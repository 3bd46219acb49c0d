"""A closed connection's clean-ups run each on its own (server/handlers/session.py `disconnect`).

One that fails (Redis trouble, a bug) is logged and the others still run: the
casual quick-match entry and the rated pool entry the connection held leave at
its close, not when they expire.
"""

from __future__ import annotations

from typing import Any

from test_server_accounts import CHEAP_HASH, account
from test_server_quick_queue import queued, waiting
from test_server_rated_pool import close, closes_seen
from test_server_rated_pool import queued as rated_queued
from wsclient import player

RATED_GAME = "racing-aces"  # test_server_rated_pool's game


def break_clean_ups(app: Any) -> list[str]:
    """A clean-up that raises, run before every other, and a watching that cannot be stopped;
    the names of what failed."""
    failed: list[str] = []
    svc = app.service

    async def broken_hook(s: Any) -> None:
        failed.append("hook")
        raise RuntimeError("a clean-up that fails")

    async def broken_unspectate(s: Any, rid: str) -> None:
        failed.append("unspectate")
        raise ConnectionError("redis is gone")

    svc.disconnect_hooks.insert(0, broken_hook)
    svc.unspectate = broken_unspectate
    return failed


async def test_a_failing_clean_up_does_not_keep_the_quick_match_entry(make_server, caplog):
    app = await make_server()
    seen = closes_seen(app)  # appended last: it runs once every other clean-up did
    failed = break_clean_ups(app)
    host = await player(app.ws_url, "host")
    lobby = (await host.request("create", game="fours-up", seats=3))["race"]
    ada = await player(app.ws_url, "ada")
    assert (await ada.request("spectate", race=lobby))["t"] == "race"
    await queued(ada)
    assert await waiting(app) == [ada.player]
    await close(ada, seen)
    assert failed == ["unspectate", "hook"]
    assert await waiting(app) == []
    assert "a disconnect clean-up failed" in caplog.text
    await host.close()


async def test_a_failing_clean_up_does_not_keep_the_rated_pool_entry(make_server):
    app = await make_server(**CHEAP_HASH)
    seen = closes_seen(app)
    failed = break_clean_ups(app)
    ada = await account(app.ws_url, "ada")
    pid = ada.player
    await rated_queued(ada)
    assert await app.rated.pool.has(RATED_GAME, pid)
    await close(ada, seen)
    assert "hook" in failed  # (the close of the guest that claimed the account failed too)
    assert not await app.rated.pool.has(RATED_GAME, pid)
