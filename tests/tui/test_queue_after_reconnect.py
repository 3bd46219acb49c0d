"""Waiting in the quick-match queue when the connection drops: the server takes the wait out
of the queue with the lost connection (docs/protocol.md §3 `quick`: "a player who comes back
and still wants a race sends `quick` again"). The terminal said "queued · waiting" for ever
once reconnected, and a rival queueing for the same game and size then waited alone: nobody
was matched, and no bot came either. Now the app sends `quick` again on `reconnected`, for the
same game, seats and queue (rated or casual), as the browser does on its `welcome`; refused,
it says why and the wait is over (the menu's way on).

Against a real server (in this process) that stops and comes back on the same port and
Redis, with a real rival; the refusal against an offline stand-in session."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from client.library.connection import connect
from client.tui.errors import ServerError
from client.tui.intent import Intent
from client.tui.net import connector, write_token
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.widgets import BoardView

from .helpers import CHEAP_HASH, account_token, rendered, until

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


@pytest.mark.parametrize("rated", [False, True], ids=["casual", "rated"])
async def test_the_wait_goes_on_after_a_reconnect(make_server, tmp_path, rated: bool) -> None:
    server = await make_server(**CHEAP_HASH)  # no bot worker: only the rival can match
    port, url = server.port, server.ws_url
    path = tmp_path / "token"
    rival: dict[str, Any] = {"name": "bob"}
    if rated:  # the rating pool takes accounts only
        ada_token, bob_token = await account_token(url, "ada"), await account_token(url, "bob")
        write_token(path, ada_token)
        rival = {"token": bob_token}
    app = PlayApp(connector(url, "ada", str(path)), Intent("quick", GAME, 2, rated=rated), server_url=url)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="in the queue")
        assert app.model.rated == rated
        await server.stop()
        await until(pilot, lambda: app.disconnected(), what="the drop known")

        await make_server(port=port, **CHEAP_HASH)
        await until(pilot, lambda: not app.disconnected(), what="reconnected")
        await until(pilot, lambda: "back in the queue" in status(app), what="queued again")
        assert app.model.status == "queued" and app.model.rated == rated

        # A rival for the same game and size (and queue) is matched with the wait: a race.
        async with connect(url, **rival) as bob:
            await bob.quick(GAME, 2, rated=rated)
            await until(pilot, lambda: app.model.status in ("countdown", "running"), what="the race formed")
            assert app.model.rated == rated and len(app.model.players) == 2


class RefusedOnReturn(LocalSession):
    """An offline session whose quick-match queue waits (nobody comes), and whose `quick`
    sent again is refused."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.quicks = 0

    def _do_quick(self, game: str, seats: int = 2) -> dict[str, Any]:
        self.quicks += 1
        if self.quicks > 1:
            raise ServerError("too-many-races", "you already hold 8 seats")
        return {"t": "queued", "game": game, "seats": seats}


async def test_a_wait_refused_on_return_is_over_and_said() -> None:
    session = RefusedOnReturn(name="ada")

    async def opened() -> LocalSession:
        return session

    app = PlayApp(opened, Intent("quick", GAME, 3))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="in the queue")
        session.events.put_nowait({"t": "disconnected", "code": 1006, "reason": ""})
        await until(pilot, lambda: app.disconnected(), what="the drop known")
        session.events.put_nowait({"t": "reconnected", "attempts": 1})
        await until(pilot, lambda: app.model.status == "none", what="the wait over")
        assert session.quicks == 2
        assert session.sent[-1] == {"t": "quick", "game": GAME, "seats": 3}  # the same wait asked for
        said = status(app)
        assert said.startswith("reconnected, but not back in the queue: "), said
        assert "'menu' to choose again" in said
        # The board says so too, and the command line offers the menu, not the queue's `leave`.
        assert "not back in the queue" in rendered(app.query_one("#board", BoardView))
        cmd = app.query_one("#cmd", Input)
        assert "menu" in cmd.placeholder and "leave" not in cmd.placeholder
        assert "waiting" not in rendered(app.query_one("#info"))
