"""The players of a rated race hear of their rating change even when the call that applied
it failed before telling them (server/handlers/rated.py `rate`): the repair that rates it
again tells them, since the call that takes the race off the pending list tells, not the
one that applied it (which would have been the failed one). The failure is injected into
the live server (a Redis blip writing the players' recent races); the rest is real."""

from __future__ import annotations

import asyncio
from typing import Any

from test_server_accounts import GAME, account, app, rated_race  # noqa: F401 (the `app` fixture)
from waiting import until

from server.handlers import rated as rated_module


def failing_record_once(monkeypatch: Any) -> dict[str, int]:
    """`record_rating` (the players' recent races' rating columns) fails its first call."""
    real = rated_module.record_rating
    calls = {"n": 0}

    async def flaky(*args: Any, **kw: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("redis blip after the ratings were applied")
        return await real(*args, **kw)

    monkeypatch.setattr(rated_module, "record_rating", flaky)
    return calls


async def test_a_rating_applied_before_a_failure_is_told_by_the_repair(app, monkeypatch):  # noqa: F811
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    calls = failing_record_once(monkeypatch)
    rid = await rated_race(ada, bob)
    await until(lambda: calls["n"] == 1, what="the race's rating, failing")
    assert (await app.ratings.rating(GAME, ada.player)).races == 1  # applied, not told
    later = app.service.now_ms() + app.settings.time_limit_s * 1000 + 120_000
    await app.rated.repair(GAME, now_ms=later)
    for c in (ada, bob):
        change = await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid)
        assert {p["player"] for p in change["players"]} == {ada.player, bob.player}
        assert (await app.ratings.rating(GAME, c.player)).races == 1  # rated once
    assert await app.rated.pending.due(GAME, later) == []
    await app.rated.repair(GAME, now_ms=later)  # nothing left: told once
    await ada.request("ping")
    assert [f for f in ada.unread if f.get("t") == "rating"] == []
    await asyncio.gather(ada.close(), bob.close())
