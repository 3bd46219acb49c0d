"""A move played while the connection is lost is said at once: not sent, to be played again
once reconnected. It was handed to the client library, which held it for its reconnection:
the status line said nothing for 10 s, then "the server did not answer in time: try again".

Online: the play app over the real client library against a real server (in this process),
which stops mid-race and comes back on the same port and Redis. Then a stand-in session for
a move sent just before the drop, whose answer never came."""

from __future__ import annotations

import asyncio
from typing import Any

from client.tui.errors import ServerError
from client.tui.offline import LocalSession

from .helpers import offline_play, race_started, ready_and_started, until
from .test_commands_while_disconnected import ada_app, status


async def test_a_move_typed_while_disconnected_is_said_not_sent(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    port = server.port
    app = ada_app(server, tmp_path, "create", 1)
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        await server.stop()
        await until(pilot, lambda: "connection lost" in status(app), what="the drop said")

        move = app.model.legal[0]
        await pilot.press(*move, "enter")
        await until(pilot, lambda: "not sent" in status(app), what="the move said not sent")
        assert status(app) == (
            f"{move}: not sent — the connection to the server is lost (reconnecting…): "
            "play it again once reconnected"
        )
        assert app.model.n == 0

        # The server back (its races are in Redis): the move played again is played.
        await make_server(countdown_ms=100, port=port)
        await until(pilot, lambda: status(app) == "reconnected", what="reconnected")
        await pilot.press(*move, "enter")
        await until(pilot, lambda: app.model.n == 1, what="the move played once reconnected")


class HeldMoves(LocalSession):
    """An offline session whose moves get no answer until ``answer`` is set; then the
    library's error for a move whose connection dropped meanwhile (`timeout`)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.answer = asyncio.Event()
        self.moves_asked = 0

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        if t != "move":
            return await super().request(t, **fields)
        self.moves_asked += 1
        await self.answer.wait()
        raise ServerError("timeout", "no reply from the server")


async def test_a_move_whose_answer_the_drop_lost_says_so() -> None:
    app, session = offline_play(kind=HeldMoves)
    assert isinstance(session, HeldMoves)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        move = app.model.legal[0]
        await pilot.press(*move, "enter")
        await until(pilot, lambda: session.moves_asked == 1, what="the move sent")
        session.events.put_nowait({"t": "disconnected", "code": 1006, "reason": ""})
        await until(pilot, lambda: "connection lost" in status(app), what="the drop said")
        session.answer.set()
        await until(pilot, lambda: status(app).startswith(f"{move}: "), what="the move's fate said")
        assert status(app) == (
            f"{move}: the connection dropped before the server answered: once reconnected, "
            "the board shows whether it was played"
        )
