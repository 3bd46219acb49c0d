"""ctrl+q quits from the menu and the screens it opens (modal screens): the menu says so,
and it did nothing there (only the race screen under it had the key)."""

from __future__ import annotations

from client.tui.menu import MenuScreen
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp

from .helpers import until


async def test_ctrl_q_quits_from_the_menu() -> None:
    local = LocalSession(name="ada", seed="0123456789abcdef0123456789abcdef", countdown_ms=100)

    async def connect() -> LocalSession:
        return local

    app = PlayApp(connect)  # no intent: the menu first
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: app.return_code is not None, what="the app quit")


async def test_a_line_said_once_the_app_has_quit_is_dropped() -> None:
    """An event handled while the app closes (a rival's `start`, a bot's moves) may say a line
    after the widgets are gone: dropped, as its redraw is, not a crash of the closing app."""
    local = LocalSession(name="ada", seed="0123456789abcdef0123456789abcdef", countdown_ms=100)

    async def connect() -> LocalSession:
        return local

    app = PlayApp(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: app.return_code is not None, what="the app quit")
    app.say("race r1 started")
    app.redraw()
