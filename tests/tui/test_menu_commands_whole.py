"""The menu says who you play as and the commands that change it, each whole on a row of its
box at 80x24: "solrace play --login" and "NAME" were on two rows, and "--claim NAME" stood
alone, no command to copy."""

from __future__ import annotations

import pytest

from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import until


def rows(widget) -> list[str]:
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


@pytest.mark.parametrize("name", ["ada", "a-name-of-twenty-four-c"])
async def test_the_guest_commands_are_whole_at_80x24(make_server, tmp_path, name: str) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, name, str(tmp_path / "token")))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        you = await until(pilot, lambda: app.screen.query("#menu-you") and app.screen.query_one("#menu-you"))
        await until(pilot, lambda: you.size.width > 0, what="laid out")
        drawn = rows(you)
        assert any(row.endswith("solrace play --login NAME") for row in drawn), drawn
        assert "to keep this guest as an account: solrace play --claim NAME" in drawn, drawn
        assert f"You: {name} (guest)" in drawn[0]
        # and the menu still whole on the screen (a long name takes a row more)
        await until(pilot, lambda: app.screen.query_one("#recent").region.area > 0, what="laid out")
        assert app.screen.region.contains_region(app.screen.query_one("#recent").region)
