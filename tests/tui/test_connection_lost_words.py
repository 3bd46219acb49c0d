"""A dropped connection reads as words on the status line, in a race and while watching: the
play app said "connection lost (1006)" (a WebSocket close code) when the server died, and
`solrace watch` and `solrace arena` said nothing while their bars froze."""

from __future__ import annotations

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.errors import connection_lost_text
from client.tui.offline import LocalSession
from client.tui.watch_app import WatchApp

from .helpers import offline_play, race_started, rendered, until


def test_the_close_code_in_words() -> None:
    died = {"t": "disconnected", "code": 1006, "reason": ""}
    assert connection_lost_text(died) == "connection lost (the server stopped answering); reconnecting…"
    said = {"t": "disconnected", "code": 1012, "reason": "server restarting"}
    assert connection_lost_text(said) == "connection lost (server restarting); reconnecting…"
    assert "1008" not in connection_lost_text({"t": "disconnected", "code": 1008, "reason": ""})
    assert connection_lost_text({"t": "disconnected", "code": 4999, "reason": ""}) == (
        "connection lost (the connection closed); reconnecting…"
    )


async def test_a_race_says_the_connection_dropped_in_words() -> None:
    app, session = offline_play()
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        session.events.put_nowait({"t": "disconnected", "code": 1006, "reason": ""})
        status = app.query_one("#status")
        await until(pilot, lambda: "connection lost" in rendered(status), what="the drop said")
        assert rendered(status) == "connection lost (the server stopped answering); reconnecting…"


@pytest.mark.parametrize("kind", [WatchApp, ArenaApp])
async def test_watching_says_the_connection_dropped_and_came_back(kind) -> None:
    session = LocalSession(name="w")

    async def connect() -> LocalSession:
        return session

    app = kind(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.session is not None, what="connected")
        status = app.query_one("#status")
        session.events.put_nowait({"t": "disconnected", "code": 1006, "reason": ""})
        await until(pilot, lambda: "connection lost" in rendered(status), what="the drop said")
        assert "the server stopped answering" in rendered(status) and "1006" not in rendered(status)
        session.events.put_nowait({"t": "reconnected"})
        await until(pilot, lambda: rendered(status) == "reconnected", what="the way back said")
