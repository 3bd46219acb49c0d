"""`leave` in a lobby gives up the seat and opens the menu, as the browser's Leave goes back
home: the lobby stayed on screen ("seats 0/2", the invite, "type 'ready' when set") and the
command line went on offering ready, start and leave to a player with no seat. The race is
behind for good: Esc on the menu does not bring it back. Against a real server."""

from __future__ import annotations

import pytest

from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import until

pytestmark = pytest.mark.timeout(60)


async def test_leave_in_a_lobby_opens_the_menu(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(
        connector(server.ws_url, "ada", str(tmp_path / "token")),
        Intent("create", "fours-up", 2),
        server_url=server.ws_url,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "lobby" and app.model.race_id, what="the lobby")
        race = app.model.race_id
        await pilot.press(*"leave", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert race in app.races_left and app.model.race_id is None
        menu = app.screen
        await until(pilot, lambda: menu.is_mounted, what="the menu mounted")
        await pilot.press("escape")  # not back to the race left
        await pilot.pause()
        assert app.screen is menu and app.model.race_id is None
