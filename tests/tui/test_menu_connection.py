"""The play app's menu says the connection as it is ("connecting…" only while connecting,
then "connected to HOST" or "offline"), and the race screen it covers shows no race
commands (ready, start, leave…) while it is up: they come back with the race."""

from __future__ import annotations

import asyncio

from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.race_text import connection_text
from client.tui.widgets import BoardView

from .helpers import click_shown, rendered, until

SEED = "0123456789abcdef0123456789abcdef"


class Online:
    online = True


def test_connection_text():
    url = "ws://solrace.example:8765/ws"
    assert connection_text(None, url) == "connecting to solrace.example:8765…"
    assert connection_text(None, None) == "connecting…"
    assert connection_text(None, url, failed=True) == "cannot connect to solrace.example:8765"
    assert connection_text(Online(), url) == "connected to solrace.example:8765"
    assert connection_text(LocalSession(), None).startswith("offline")


def race_commands_shown(app: PlayApp) -> bool:
    return "unready" in rendered(app.query_one("#status")) or bool(app.query_one("#cmd").display)


async def test_offline_menu_after_connecting() -> None:
    gate = asyncio.Event()
    session = LocalSession(name="ada", seed=SEED, countdown_ms=100, rival_interval=5)

    async def connect() -> LocalSession:
        await gate.wait()
        return session

    app = PlayApp(connect)
    async with app.run_test(size=(110, 45)) as pilot:
        info, board = app.query_one("#info"), app.query_one("#board", BoardView)
        await until(pilot, lambda: "connecting…" in rendered(info), what="connecting")
        assert "connecting…" in rendered(board)
        gate.set()
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        # The header is refreshed by a timer: wait for it to say the connection as it is.
        await until(
            pilot,
            lambda: "offline" in rendered(info) and "connecting" not in rendered(info),
            what="the header saying offline",
        )
        await until(pilot, lambda: "connecting" not in rendered(board), what="the board no longer connecting")
        assert not race_commands_shown(app)
        await until(pilot, lambda: bool(app.screen.query("#menu-conn")), what="the menu's widgets")
        assert rendered(app.screen.query_one("#menu-conn")).startswith("offline")
        await click_shown(pilot, "#quick")
        await until(pilot, lambda: app.model.status == "running", what="the race")
        assert app.query_one("#cmd").display and app.focused is app.query_one("#cmd")
        assert "offline" not in rendered(info)  # the race's header instead


async def test_online_menu_says_connected_to_the_host(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), server_url=server.ws_url)
    host = server.ws_url.split("//", 1)[1].split("/", 1)[0]
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert "connecting" not in rendered(app.query_one("#board"))
        assert not race_commands_shown(app)
        await until(pilot, lambda: f"connected to {host}" in rendered(app.query_one("#info")), what="header")
        # The menu screen is pushed before its widgets are mounted (a loaded machine shows it).
        await until(pilot, lambda: bool(app.screen.query("#menu-conn")), what="the menu's widgets")
        assert rendered(app.screen.query_one("#menu-conn")) == f"connected to {host} · ctrl+q quits"
