"""An arena that is over, opened in `solrace arena`: its final standings, and no key offered
that cannot act any more. The status line and the footer offered join, withdraw and
berserk, and `j` was answered with the server's "arena 'hourly-fours-up-29940600' is over";
an arena nobody played said "nobody has joined yet". Against a real server."""

from __future__ import annotations

import time

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.net import connector
from protocol import messages as m

from .helpers import footer_keys, rendered, until

pytestmark = pytest.mark.timeout(60)


async def test_an_arena_over_offers_no_join(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(arena_create=1, arena_schedule="off", arena_tick_ms=100)
    async with connect(server.ws_url, name="host") as host:
        now = int(time.time() * 1000)
        await host.request(
            m.ArenaCreate(
                arena="old-cup", game="fours-up", starts=now - 60_000, duration_ms=10_000, name="Old"
            )
        )
        app = ArenaApp(
            connector(server.ws_url, "ada", str(tmp_path / "token")), arena="old-cup", refresh_s=0.3
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.arena_id == "old-cup", what="opened")
            status = app.query_one("#status")
            await until(pilot, lambda: "over" in rendered(status), what=f"said over: {rendered(status)!r}")
            assert "join" not in rendered(status)
            keys = footer_keys(app)
            assert not keys.get("join") and not keys.get("withdraw") and not keys.get("berserk"), keys
            await pilot.press("j")
            await pilot.pause()
            assert "old-cup" not in rendered(status) and not app.data.get("joined")
            standings = app.query_one("#standings")
            await until(pilot, lambda: "nobody joined" in rendered(standings), what="the final standings")
