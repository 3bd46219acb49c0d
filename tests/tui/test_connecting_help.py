"""While `solrace play` is still connecting, its status line and command line say so: they
offered the race's commands and moves ("Commands: ready unready start leave finish resync hint
menu quit", "move (w>f3…) or command (ready, start, finish, quit)"), none of which acts before
the session opens. A command typed meanwhile is told the same; once connecting failed, only
quitting is offered. Once connected, the race's own help comes."""

from __future__ import annotations

from textual.widgets import Input

from client.tui.offline import LocalSession
from client.tui.play_app import Intent, PlayApp

from .helpers import never_connects, rendered, until

# Words of the race's help that would do nothing before the session opens.
RACE_WORDS = ("ready", "start", "leave", "finish", "refresh", "resync", "hint", "menu", "w>f3")
URL = "ws://127.0.0.1:8765/ws"


def status(app: PlayApp) -> str:
    return " ".join(rendered(app.query_one("#status")).split())


def offers_nothing_of_a_race(text: str) -> bool:
    return not any(word in text for word in RACE_WORDS)


async def test_while_connecting_the_help_says_so_and_offers_no_command() -> None:
    app = PlayApp(never_connects, server_url=URL)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.query_one("#status").region.height > 0, what="the status line")
        said = status(app)
        assert said.startswith("connecting to 127.0.0.1:8765…"), said
        assert "ctrl+q quits" in said and offers_nothing_of_a_race(said), said
        cmd = app.query_one("#cmd", Input)
        assert cmd.placeholder.startswith("connecting") and offers_nothing_of_a_race(cmd.placeholder)
        for typed in ("ready", "menu", "w>f3"):
            app.say("")
            await pilot.press(*typed, "enter")
            await until(pilot, lambda: status(app) == said, what=f"{typed} answered")


async def test_once_connecting_failed_only_quitting_is_offered() -> None:
    async def refused():
        raise OSError("connection refused")

    app = PlayApp(refused, server_url=URL)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: status(app) == "cannot connect: connection refused", what="the failure")
        cmd = app.query_one("#cmd", Input)
        assert "ctrl+q quits" in cmd.placeholder and offers_nothing_of_a_race(cmd.placeholder)
        await pilot.press(*"ready", "enter")
        await until(pilot, lambda: "nothing to act on" in status(app), what="ready answered")
        assert status(app).startswith("cannot connect to 127.0.0.1:8765") and offers_nothing_of_a_race(
            status(app)
        )


async def test_once_connected_the_race_help_comes() -> None:
    session = LocalSession(name="ada", countdown_ms=100, rival_interval=5)

    async def connect():
        return session

    app = PlayApp(connect, Intent("quick", "fours-up", 2))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "running", what="the race")
        await pilot.press(*"help", "enter")
        await until(pilot, lambda: "finish" in status(app), what="the race's help")
        assert "connecting" not in status(app)
        assert not app.query_one("#cmd", Input).placeholder.startswith("connecting")


async def test_once_connecting_failed_retry_connects_again() -> None:
    """A player who ran `solrace play` before any server starts one and types 'retry': the
    app connects (it offered only ctrl+q: quit and start it again)."""
    session = LocalSession(name="ada", countdown_ms=100, rival_interval=5)
    tries = []

    async def connect():
        tries.append(1)
        if len(tries) == 1:
            raise OSError("connection refused")
        return session

    app = PlayApp(connect, Intent("quick", "fours-up", 2), server_url=URL)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.connect_failed, what="the failure")
        cmd = app.query_one("#cmd", Input)
        assert "'retry'" in cmd.placeholder, cmd.placeholder
        await pilot.press(*"ready", "enter")
        await until(pilot, lambda: "'retry'" in status(app), what="ready answered")
        await pilot.press(*"retry", "enter")
        await until(pilot, lambda: app.model.status == "running", what="connected, the race")
        assert not app.connect_failed and len(tries) == 2
