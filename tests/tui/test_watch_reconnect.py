"""`solrace watch` after its connection drops and comes back: what changed meanwhile shows.

The race ended while the watcher's server was down: the watcher said "running · 9:38 left"
for ever, with no ranking and no analysis key (the re-spectate's reply, the finished race's
whole answer, was thrown away). Or the race ran on: a rival's move made meanwhile never
reached the bars. Two real servers on one Redis: the players on A, the watcher on B, which
stops and comes back on its port while the players play.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from must import must

from client.library.connection import Client, connect
from client.tui.net import connector
from client.tui.watch_app import WatchApp
from client.tui.widgets import BoardView

from .helpers import footer_keys, rendered, two_player_race, until

pytestmark = pytest.mark.timeout(120)

Away = Callable[[Client, Client, str], Awaitable[None]]


@asynccontextmanager
async def watched_while_away(make_server: Any, tmp_path: Any, away: Away) -> AsyncIterator[tuple[Any, ...]]:
    """(a, b, race, app, pilot): `solrace watch` on B watches a race of `a` and `b` on A; B
    stops, `away(a, b, race)` runs, B comes back; yields once the watcher has reconnected."""
    server_a = await make_server()
    server_b = await make_server()
    port = server_b.port
    async with connect(server_a.ws_url, name="alice") as a, connect(server_a.ws_url, name="bob") as b:
        race = await two_player_race(a, b, "fours-up")
        app = WatchApp(connector(server_b.ws_url, "watcher", str(tmp_path / "token")), race=race)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.model is not None and app.model.race_id == race, what="spectating")
            await a.move(race, "draw")
            await until(pilot, lambda: must(app.model).players[a.player].n == 1, what="the first move shown")

            await server_b.stop()
            await until(
                pilot, lambda: "connection lost" in rendered(app.query_one("#status")), what="the drop"
            )
            await away(a, b, race)
            await make_server(port=port)
            await until(
                pilot, lambda: rendered(app.query_one("#status")) == "reconnected", what="reconnected"
            )
            yield a, b, race, app, pilot


async def test_a_race_that_ended_while_away_shows_its_end(make_server, tmp_path) -> None:
    async def finish_it(a: Client, b: Client, race: str) -> None:
        await a.move(race, "draw")
        await b.move(race, "draw")
        await a.finish(race)
        await b.finish(race)

    async with watched_while_away(make_server, tmp_path, finish_it) as (a, b, race, app, pilot):
        await until(pilot, lambda: must(app.model).status == "finished", what="the end known")
        result = app.query_one("#race-result")
        await until(pilot, lambda: result.display, what="the ranking")
        assert "alice" in rendered(result) and "bob" in rendered(result)
        assert "✓ matches the deal's fingerprint" in rendered(result)
        assert "running" not in rendered(app.query_one("#race-info"))
        await until(pilot, lambda: footer_keys(app).get("analysis"), what="the analysis key")
        # The final boards, every card shown, with the moves made while away.
        await until(pilot, lambda: app.final.shown and len(app.query(BoardView)) == 2, what="final boards")
        assert must(app.model).boards[a.player][0] == 2
        assert must(app.model).boards[b.player][0] == 1


async def test_moves_made_while_away_reach_the_bars(make_server, tmp_path) -> None:
    async def move_on(a: Client, b: Client, race: str) -> None:
        await a.move(race, "draw")
        await b.move(race, "draw")  # the race's last event before the watcher is back

    async with watched_while_away(make_server, tmp_path, move_on) as (a, b, race, app, pilot):
        m = must(app.model)
        await until(pilot, lambda: m.players[b.player].n == 1, what="bob's move while away")
        assert m.players[a.player].n == 2 and m.status == "running"
        bars = rendered(app.query_one("#race-bars"))
        assert "bob" in bars and "1 move" in bars
        # And the race goes on from there.
        await b.move(race, "draw")
        await until(pilot, lambda: m.players[b.player].n == 2, what="bob's move once back")
