"""The status line of a race the player created follows its lobby: "share its id" is said
once, at creation; a rival who sits down, gets ready or leaves changes it to what is true
then (who came, what the race waits for). The play app against a real server, a rival
through the client library."""

from __future__ import annotations

import pytest

from client.library.connection import connect
from client.tui.model import PlayerRow, RaceModel
from client.tui.net import connector
from client.tui.play_app import Intent, PlayApp
from client.tui.race_text import lobby_change_text

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(120)


def status(app: PlayApp) -> str:
    return " ".join(rendered(app.query_one("#status")).split())


async def test_the_share_line_gives_way_once_a_rival_sits(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 3))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "share its id" in status(app), what="the race created")
        race = app.model.race_id
        assert race is not None
        async with connect(server.ws_url, name="bob") as bob:
            await bob.join(race)
            await until(pilot, lambda: "bob joined" in status(app), what="bob's seat said")
            assert "share its id" not in status(app)
            assert "1 seat free: type 'ready' when set" in status(app), status(app)
            await pilot.press(*"ready", "enter")
            await until(pilot, lambda: "waiting for bob to be ready" in status(app), what="ada ready")
            await bob.ready(race)
            await until(pilot, lambda: "bob is ready" in status(app), what="bob's ready said")
            assert "'start' begins with those present" in status(app), status(app)
            await bob.leave(race)
            await until(pilot, lambda: "bob left" in status(app), what="bob's leaving said")
            assert "2 seats free" in status(app), status(app)


def test_a_lobby_event_that_changes_no_seat_says_nothing() -> None:
    m = RaceModel(me="p1", race_id="r1", game="fours-up", status="lobby", host="p1", seats=2)
    m.players["p1"] = PlayerRow("p1", "ada")
    assert lobby_change_text(m, dict(m.players)) is None  # the same seats, the same readiness
    assert lobby_change_text(m, None) is None  # no lobby of this race seen before
    before = dict(m.players)
    m.players["p2"] = PlayerRow("p2", "bob", ready=True)
    assert lobby_change_text(m, before) == "bob joined (ready) · every seat is taken: type 'ready' when set"
