"""The menu's "Race a bot" against a real server (in this process), a real Redis and a real
bot worker (client/bots/service.py, in this process too): one click seats a bot of the level
chosen in a private two-seat race and the race starts, with no wait in the quick-match queue
(docs/protocol.md §3 `bot`). Without a free bot the player is told so and keeps no seat."""

from __future__ import annotations

import pytest
from textual.screen import Screen
from textual.widget import Widget

from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_text import NO_BOT

from .helpers import bot_worker, click_shown, rendered, until

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


def shown(screen: Screen, selector: str) -> Widget | None:
    """The widget, once laid out: a Select takes its value only once its parts are there."""
    found = screen.query(selector)
    return found.first() if found and found.first().region.area > 0 else None


async def test_race_a_bot_from_the_menu_starts_at_once(make_server, tmp_path) -> None:
    # A quick-match alone would wait for its bot far longer than this test does.
    server = await make_server(quick_bot_after_s=0)
    async with bot_worker(server):
        app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
        async with app.run_test(size=(110, 50)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, MenuScreen) and shown(app.screen, "#bot-random"),
                what="the menu",
            )
            await click_shown(pilot, "#bot-random")
            m = app.model
            await until(pilot, lambda: m.status in ("countdown", "running"), what="the race against the bot")
            assert m.game == GAME and m.private and m.seats == 2
            bots = [p for p in m.players.values() if p.player.startswith("bot-")]
            assert len(bots) == 1 and bots[0].name == "Random bot", m.players
            assert m.me in m.players
            await until(pilot, lambda: m.status == "running" and m.legal, what="the start")


async def test_no_free_bot_is_said_and_keeps_no_seat(make_server, tmp_path) -> None:
    server = await make_server()  # and no bot worker
    app = PlayApp(connector(server.ws_url, "bob", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(110, 50)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await click_shown(pilot, "#bot-greedy")
        status = app.query_one("#status")
        await until(pilot, lambda: NO_BOT in rendered(status), what="no bot")
        assert app.model.race_id is None
    # The lobby made for the bot was left: the token holds no seat to come back to.
    again = await connector(server.ws_url, None, str(tmp_path / "token"))()
    try:
        assert again.name == "bob" and again.seated_races == []
    finally:
        await again.close()
