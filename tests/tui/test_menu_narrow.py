"""The menu is whole and readable in a 60-column terminal: its box (72 columns wide) was cut
at the screen's right edge, with its right border, the end of the account commands, the
last bot level and the Join button. Online (a guest's and an account's menu) and offline."""

from __future__ import annotations

import pytest

from client.tui.menu import MenuScreen
from client.tui.net import connector, write_token
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp

from .helpers import CHEAP_HASH, account_token, until

#: What each menu must show whole, each on one row.
WORDS = {
    "offline": ["solrace — choose a game", "Double Aces and Kings  double-aces-and-kings", "ctrl+q quits"],
    "guest": [
        "solrace play --login NAME",
        "solrace play --claim NAME",
        "Hard · search",
        "Join",
        "Your races",
    ],
    "account": ["to log out: solrace play --logout", "rated", "Hard · search", "Join", "Your races"],
}


def lines(app: PlayApp) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("who", ["offline", "guest", "account"])
async def test_the_menu_is_whole_at_60_columns(who, make_server, tmp_path) -> None:
    if who == "offline":
        local = LocalSession(name="ada")

        async def connect() -> LocalSession:
            return local

        app = PlayApp(connect)
    else:
        server = await make_server(**CHEAP_HASH)
        token_file = tmp_path / "token"
        if who == "account":
            write_token(token_file, await account_token(server.ws_url, "ada"))
        app = PlayApp(connector(server.ws_url, "gus", str(token_file)), server_url=server.ws_url)
    async with app.run_test(size=(60, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        screen = app.screen
        last = "#recent" if who != "offline" else "#practice"
        await until(
            pilot,
            lambda: bool(screen.query(last)) and screen.query_one(last).region.area > 0,
            what="laid out",
        )
        menu = screen.query_one("#menu")
        assert screen.region.contains_region(menu.region), menu.region
        inside = menu.content_region
        for widget in menu.query("Label, Button, Input, Checkbox, RadioSet"):
            if widget.display and widget.region.area:
                assert inside.contains_region(widget.region), (widget, widget.region, inside)
        shown = lines(app)
        box = [row for row in shown if "╭" in row]
        assert len(box) == 1 and box[0].rstrip().endswith("╮"), box  # its right side too
        for words in WORDS[who]:
            assert any(words in row for row in shown), (words, shown)
