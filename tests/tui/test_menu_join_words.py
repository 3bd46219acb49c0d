"""The menu's Join box with what names no race: a link without a race id was a traceback out
of the app (`parse_link`'s ValueError), and an id past the server's bound was sent and refused
in its decoder's words ("`race`: Expected `str` of length <= 64"). Both are said on the menu,
which stays."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Label

from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import click_shown, rendered, until


@pytest.mark.parametrize("typed", ["http://127.0.0.1:8765/ws", "r" * 100])
async def test_the_join_box_says_what_names_no_race(make_server, tmp_path, typed: str) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")))
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        menu = app.screen
        # composed and laid out: the menu may still be mounting its controls
        await until(
            pilot,
            lambda: bool(menu.query("#join-id")) and menu.query_one("#join-id").region.area > 0,
            what="laid out",
        )
        menu.query_one("#join-id", Input).value = typed
        await click_shown(pilot, "#join")
        error = menu.query_one("#menu-error", Label)
        await until(pilot, lambda: "no race id in" in rendered(error), what="the refusal")
        assert app.screen is menu and app.model.race_id is None
