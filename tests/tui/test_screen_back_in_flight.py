"""A menu screen left while its request is in flight (client/tui ratings, recent, daily): the
reply that lands as the screen goes must not crash the app. The screen's widgets go before the
screen itself, whose unmount cancels its workers: a reply in between found no widget to write
to (`NoMatches`, the worker failed and the app with it; a loaded machine saw it on ratings)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.tui.daily_screen import DailyScreen
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.ratings_screen import RatingsScreen
from client.tui.recent_screen import RecentScreen

from .helpers import click_shown, until

SCREENS = [
    ("#ratings", RatingsScreen, "rating_board"),
    ("#recent", RecentScreen, "recent"),
    ("#daily", DailyScreen, "history"),
]


@pytest.mark.parametrize(("button", "kind", "held"), SCREENS)
async def test_back_while_a_request_is_in_flight(make_server, tmp_path, button, kind, held) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")))
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        session = app.session
        assert session is not None
        gate = asyncio.Event()
        holding: list[str] = []
        ask = session.request

        async def held_request(t: str, **f: Any) -> Any:
            if t == held:
                holding.append(t)
                await gate.wait()
            return await ask(t, **f)

        session.request = held_request  # type: ignore[method-assign]
        await click_shown(pilot, button)
        screen = await until(pilot, lambda: isinstance(app.screen, kind) and app.screen, what=button)
        await until(pilot, lambda: holding, what=f"the {held} request held")
        # Back, and the reply lands while the screen is being taken down.
        screen.action_back()
        gate.set()
        await until(pilot, lambda: app.screen is menu, what="the menu again")
        await pilot.pause()
        assert app.is_running and app.screen is menu
