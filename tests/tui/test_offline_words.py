"""An offline race (`solrace play --offline`) is in this process: nobody else can reach it.
Its menu offers no race to join (any id typed there could only be "no such race"), and a
race created offline says its other seats are local bots, not "share its id" nor an
invitation command that no other terminal could use."""

from __future__ import annotations

from client.tui.menu import MenuScreen
from client.tui.model import PlayerRow, RaceModel
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.race_text import lobby_text
from client.tui.widgets import BoardView

from .helpers import click_shown, rendered, until


async def test_the_offline_menu_has_no_join_and_create_invites_nobody() -> None:
    session = LocalSession(name="ada", countdown_ms=100, rival_interval=5)

    async def connect() -> LocalSession:
        return session

    app = PlayApp(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        await until(pilot, lambda: menu.query_one("#create").region.area > 0, what="laid out")
        assert not menu.query("#join-id") and not menu.query("#join")
        await click_shown(pilot, "#create")
        await until(pilot, lambda: app.model.status == "lobby", what="lobby")
        board = rendered(app.query_one("#board", BoardView))
        status = rendered(app.query_one("#status"))
        assert "--join" not in board and "share its id" not in status, (board, status)
        assert "local bots" in board and "local bots" in status


def test_an_offline_lobby_names_no_invitation() -> None:
    m = RaceModel(me="p1", race_id="local-1", game="fours-up", status="lobby", host="p1", seats=2)
    m.players["p1"] = PlayerRow("p1", "ada")
    offline = lobby_text(m, None, online=False)
    assert "--join" not in offline and "local bots" in offline
    assert "solrace play --join local-1" in lobby_text(m, None)  # online: the invitation stays
