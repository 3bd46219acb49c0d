"""The online menu (an account's: the rated box too) is whole in an 80x24 terminal: every
control is on screen, none scrolled out of reach (it was 36 rows tall)."""

from __future__ import annotations

from client.tui.menu import MenuScreen
from client.tui.net import connector, write_token
from client.tui.play_app import PlayApp

from .helpers import CHEAP_HASH, account_token, until


async def test_the_online_menu_fits_80x24(make_server, tmp_path) -> None:
    server = await make_server(**CHEAP_HASH)
    token_file = tmp_path / "token"
    write_token(token_file, await account_token(server.ws_url, "ada"))
    app = PlayApp(connector(server.ws_url, None, str(token_file)))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        screen = app.screen
        # Composed and laid out: the menu may still be mounting its controls.
        await until(
            pilot,
            lambda: bool(screen.query("#recent")) and screen.query_one("#recent").region.area > 0,
            what="laid out",
        )
        assert screen.query("#rated"), "an account's menu"
        whole = screen.region
        for selector in (
            "#games",
            "#seats",
            "#rated",
            "#how",
            "#quick",
            "#practice",
            "#bot-random",
            "#join-id",
            "#daily",
            "#recent",
        ):
            region = screen.query_one(selector).region
            assert region.area > 0 and whole.contains_region(region), (selector, region)
