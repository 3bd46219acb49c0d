"""`solrace play --offline` starts a race of --game against --rivals local bots at once
(no --quick needed, no menu, nothing about a server)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from tui.helpers import until

from client.cli import play


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


def short_countdown(app: Any) -> None:
    """The offline race counts down 0.1 s instead of 3 s (what the flags build is unchanged)."""
    connect = app.connect

    async def connect_short() -> Any:
        session = await connect()
        session.countdown_ms = 100
        return session

    app.connect = connect_short


@pytest.mark.parametrize(("game", "rivals"), [("fours-up", 2), ("rouge-et-noir", 1), ("racing-aces", 4)])
async def test_offline_game_and_rivals(game: str, rivals: int) -> None:
    app = play.build_app(parse("--offline", "--game", game, "--rivals", str(rivals), "--bot-speed", "5"))
    short_countdown(app)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: len(app.model.players) == rivals + 1, timeout=10, what="the seats")
        assert app.model.game == game
        assert app.model.seats == rivals + 1
        assert not app.screen_stack[1:], "a menu was opened"
        await until(pilot, lambda: app.model.status == "running", timeout=10, what="the start")
        assert app.model.view  # the player's own board of that game


async def test_offline_without_game_asks_with_the_rivals_as_seats() -> None:
    from client.tui.menu import MenuScreen

    app = play.build_app(parse("--offline", "--rivals", "3"))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert isinstance(app.screen, MenuScreen) and app.screen.seats == 4


def test_online_takes_several_urls() -> None:
    args = parse("--url", "ws://a.test:1/ws", "--url", "ws://b.test:2/ws", "--game", "fours-up", "--quick")
    assert play.server_urls(args) == ["ws://a.test:1/ws", "ws://b.test:2/ws"]
    app = play.build_app(args)
    assert app.server_url == "ws://a.test:1/ws"  # links shared from the app name the first
    assert play.server_urls(parse()) == [play.DEFAULT_URL]
