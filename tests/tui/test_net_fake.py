"""The play app over the real client library, against the library's fake server.

This checks the NetSession adapter (typed messages ↔ protocol dicts, token
file, errors) without the real server; tests/tui/test_e2e.py runs the same
flow against `solrace serve`.
"""

from __future__ import annotations

import fake_server
from must import must

from client.tui.net import connector
from client.tui.play_app import Intent, PlayApp

from .helpers import rendered, until


async def test_create_ready_move_against_fake_server(tmp_path):
    from client.library.connection import connect

    token_file = tmp_path / "token"
    async with fake_server.FakeServer() as srv:
        app = PlayApp(connector(srv.url, "ada", str(token_file)), Intent("create", "fours-up", 2))
        async with app.run_test(size=(110, 45)) as pilot:
            await until(pilot, lambda: app.model.race_id is not None, what="race created")
            race = must(app.model.race_id)
            assert token_file.read_text().strip()
            async with connect(srv.url, name="bob") as bob:
                await bob.join(race)
                await bob.ready(race)
                await pilot.press(*"ready", "enter")
                await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="start")
                assert "f0" in rendered(app.query_one("#board"))
                await pilot.press(*"draw", "enter")
                await until(pilot, lambda: app.model.n == 1, what="ack")
                await pilot.press(*"t0>t0", "enter")
                await until(pilot, lambda: "illegal-move" in rendered(app.query_one("#status")), what="error")
                await bob.wait_for("start")
                for _ in range(3):
                    await bob.move(race, "draw")
                await until(pilot, lambda: app.model.players[bob.player].n == 3, what="rival progress")
                assert "bob" in rendered(app.query_one("#bars"))


async def test_token_resumes_the_seat_and_a_stale_token_is_replaced(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("stale-token\n")
    async with fake_server.FakeServer() as srv:
        app = PlayApp(connector(srv.url, "ada", str(token_file)), Intent("create", "racing-aces", 2))
        async with app.run_test(size=(110, 45)) as pilot:
            await until(pilot, lambda: app.model.race_id is not None, what="race created")
            race, me = app.model.race_id, app.model.me
        token = token_file.read_text().strip()
        assert token and token != "stale-token"
        # a new run with the same token file and no intent goes back to the seat it holds
        again = PlayApp(connector(srv.url, None, str(token_file)))
        async with again.run_test(size=(110, 45)) as pilot:
            await until(pilot, lambda: again.model.race_id == race, what="resumed race")
            assert again.model.me == me and again.model.status == "lobby"
            assert "back in race" in rendered(again.query_one("#status"))
