"""What the terminal says when the connection drops under a request, at once.

* A move sent just before the drop, whose ack never came: the client library held it for its
  reconnection, and the status line said, only at the request's timeout (10 s), that the
  connection had dropped. Now said at once: the server may have played it, so the player is
  told to look at the board the reconnection brings (resynced from the server); the move is
  not resent behind the player's back. Against the library's fake server (tests/fake_server.py),
  which holds the move's ack while it stops, and comes back on the same port with its state.
* A race command in the same case (an offline stand-in session whose command's answer the
  drop lost): the race shows once reconnected whether it was done.
* The menu's lists (your races, the daily challenge, ratings) asked while the connection is
  lost: each request waited the library's 10 s for a reconnection, then "the server did not
  answer in time" (the daily screen asks eight times: 80 s). Now at once, in the header's
  words: "connection lost — reconnecting…". Against a real server that stops and comes back.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets
from fake_server import FakeServer
from must import must
from waiting import DEADLINE

from client.tui.daily_screen import DailyScreen
from client.tui.errors import ServerError
from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import NetSession, connector
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.ratings_screen import RatingsScreen
from client.tui.recent_screen import RecentScreen
from client.tui.recent_text import EMPTY_TEXT
from protocol import messages as m
from protocol.rules.facts import game_name
from protocol.rules.games import GAMES

from .helpers import click_shown, offline_play, race_started, ready_and_started, rendered, until

pytestmark = pytest.mark.timeout(120)

#: The header's words while the connection is lost, which the menus' lists say now.
LOST = "connection lost — reconnecting… (not connected to the server): try again once reconnected"


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


async def test_a_move_whose_ack_the_drop_lost_is_said_at_once(tmp_path) -> None:
    async with FakeServer() as fake:
        try:
            await move_whose_ack_the_drop_lost(fake, tmp_path)
        finally:
            fake.acks_released.set()  # else the server's held handler keeps it from closing


async def move_whose_ack_the_drop_lost(fake: FakeServer, tmp_path) -> None:
    app = PlayApp(connector(fake.url, "ada", str(tmp_path / "token")), Intent("create", "racing-aces", 1))
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        session = app.session
        assert isinstance(session, NetSession)
        # A timeout longer than the test's waits: the move's fate is said by the drop.
        session.client.timeout = 10 * DEADLINE
        race, me = must(app.model.race_id), app.model.me
        seat = fake.races[race].players[must(me)]
        fake.hold_acks_of = me
        move = app.model.legal[0]
        await pilot.press(*move, "enter")
        await until(pilot, lambda: seat.n == 1, what="the move played on the server, its ack held")

        fake._server.close()  # stops listening, closes the connections (1001)
        await until(pilot, lambda: status(app).startswith(f"{move}: "), what="the move's fate said")
        assert status(app) == (
            f"{move}: the connection dropped before the server answered: once reconnected, "
            "the board shows whether it was played"
        )
        assert app.disconnected() and app.model.n == 0

        # The server back: the board is the server's, with the move played once (not resent).
        fake.acks_released.set()
        await fake._server.wait_closed()
        port = urlsplit(fake.url).port
        fake._server = await websockets.serve(fake.handle, "127.0.0.1", port, compression=None)
        await until(pilot, lambda: not app.disconnected(), what="reconnected")
        await until(pilot, lambda: app.model.n == 1, what="the board resynced")
        assert seat.n == 1
        assert [f.move for f in fake.frames_in if isinstance(f, m.Move)] == [move]


class LostCommands(LocalSession):
    """An offline session whose `finish` gets the error of a command sent just before the
    connection dropped (`reply-lost`), once ``answer`` is set."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.answer = asyncio.Event()
        self.asked = 0

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        if t != "finish":
            return await super().request(t, **fields)
        self.asked += 1
        await self.answer.wait()
        raise ServerError("reply-lost", "connection lost (1006)")


async def test_a_command_whose_answer_the_drop_lost_says_so() -> None:
    app, session = offline_play(kind=LostCommands)
    assert isinstance(session, LostCommands)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: session.asked == 1, what="finish sent")
        session.events.put_nowait({"t": "disconnected", "code": 1006, "reason": ""})
        await until(pilot, lambda: "connection lost" in status(app), what="the drop said")
        session.answer.set()
        await until(pilot, lambda: status(app).startswith("finish: "), what="the command's fate said")
        assert status(app) == (
            "finish: the connection dropped before the server answered: once reconnected, "
            "the race shows whether it was done"
        )
        assert app.model.my_status == "playing"


async def open_from_menu(pilot, app: PlayApp, button: str, kind: type) -> Any:
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
    await click_shown(pilot, button)
    return await until(pilot, lambda: isinstance(app.screen, kind) and app.screen, what=button)


async def back_to_menu(pilot, app: PlayApp) -> None:
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu again")


async def test_the_menus_lists_say_at_once_the_connection_is_lost(make_server, tmp_path) -> None:
    server = await make_server()
    port = server.port
    url = server.ws_url
    app = PlayApp(connector(url, "ada", str(tmp_path / "token")), server_url=url, default_game="fours-up")
    async with app.run_test(size=(130, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.session, what="the menu")
        await server.stop()
        await until(pilot, lambda: app.disconnected(), what="the drop known")

        recent = await open_from_menu(pilot, app, "#recent", RecentScreen)
        said = recent.query_one("#recent-error")
        await until(pilot, lambda: rendered(said), what="Your races says why it is empty")
        assert rendered(said) == f"your races: {LOST}"
        await back_to_menu(pilot, app)

        daily = await open_from_menu(pilot, app, "#daily", DailyScreen)
        said = daily.query_one("#daily-error")
        await until(pilot, lambda: rendered(said), what="the daily screen says why it is empty")
        assert rendered(said) == "; ".join(f"{game_name(g)}: {LOST}" for g in GAMES)
        await back_to_menu(pilot, app)

        ratings = await open_from_menu(pilot, app, "#ratings", RatingsScreen)
        said = ratings.query_one("#ratings-error")
        await until(pilot, lambda: rendered(said), what="the ratings screen says why it is empty")
        assert rendered(said) == f"Fours Up rating board: {LOST}"
        await back_to_menu(pilot, app)

        # The server back: the lists load again.
        await make_server(port=port)
        await until(pilot, lambda: not app.disconnected(), what="reconnected")
        recent = await open_from_menu(pilot, app, "#recent", RecentScreen)
        await until(pilot, lambda: EMPTY_TEXT in rendered(recent.query_one("#recent-detail")), what="loaded")


def test_a_race_asked_for_whose_answer_the_drop_lost_may_be_there() -> None:
    from client.tui.race_text import start_refused_text

    lost = ServerError("reply-lost", "connection lost (1006)")
    assert start_refused_text(lost, Intent("create", "fours-up", 2)) == (
        "the connection dropped before the server answered; the race may be there all the same "
        "(solrace play, launched again, goes back to a race you hold a seat in) — 'menu' to choose again"
    )
