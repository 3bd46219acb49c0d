"""The menu's connection line follows the connection: it said "connected to HOST" after the
connection dropped (worked out once, when the menu opened), while the header said
"connection lost — reconnecting…". Now it says the drop until the connection is back, also
for a menu opened while it is lost. Against a real server (in this process) that stops and
comes back on the same port and Redis."""

from __future__ import annotations

import pytest

from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import ready_and_started, rendered, until

pytestmark = pytest.mark.timeout(120)

LOST = "connection lost — reconnecting… · ctrl+q quits"


def menu_line(app: PlayApp) -> str:
    found = app.screen.query("#menu-conn")
    return rendered(found.first()) if found else ""


async def test_the_menu_says_the_connection_as_it_is(make_server, tmp_path) -> None:
    server = await make_server()
    port, url = server.port, server.ws_url
    host = url.split("//", 1)[1].split("/", 1)[0]
    app = PlayApp(connector(url, "ada", str(tmp_path / "token")), server_url=url)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: menu_line(app).startswith("connected to"), what="the menu")
        await server.stop()
        await until(pilot, lambda: app.disconnected(), what="the drop known")
        await until(pilot, lambda: menu_line(app) == LOST, what="the menu saying the drop")

        server = await make_server(port=port)
        await until(pilot, lambda: not app.disconnected(), what="reconnected")
        await until(pilot, lambda: menu_line(app) == f"connected to {host} · ctrl+q quits", what="back")


async def test_a_menu_opened_while_the_connection_is_lost_says_so(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    url = server.ws_url
    app = PlayApp(
        connector(url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 1), server_url=url
    )
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="race over")
        await server.stop()
        await until(pilot, lambda: app.disconnected(), what="the drop known")
        await pilot.press(*"menu", "enter")  # needs no server
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await until(pilot, lambda: menu_line(app) == LOST, what="the menu saying the drop")
