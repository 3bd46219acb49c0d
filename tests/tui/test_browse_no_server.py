"""`solrace watch` and `solrace arena` with no server at their address say the ways on first
(start one, or name it with --url), and their list no longer says "connecting…" for ever:
the status line had only "cannot connect: no server answered (…ConnectionRefusedError…)".
The reason is in plain words now: the exception's class goes to the log only."""

from __future__ import annotations

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.browse import UNREACHABLE_WAYS
from client.tui.net import connector
from client.tui.watch_app import WatchApp

from .helpers import rendered, until
from .test_no_server_help import closed_port_url


@pytest.mark.parametrize("kind", [WatchApp, ArenaApp])
async def test_no_server_says_the_ways_on(kind, tmp_path) -> None:
    url = closed_port_url()
    app = kind(connector(url, "ada", str(tmp_path / "token")))
    async with app.run_test(size=(80, 24)) as pilot:
        status = app.query_one("#status")
        await until(pilot, lambda: "cannot connect" in rendered(status), what="the connection given up")
        said = rendered(status)
        assert said.startswith(UNREACHABLE_WAYS) and "solrace serve" in said, said
        assert "connecting" not in rendered(app.query_one("#list-title"))
        assert len(UNREACHABLE_WAYS) <= 78  # whole on its row, before the reason
        # The reason in plain words: the exception (ConnectionRefusedError…) is for the log.
        where = url.removeprefix("ws://").removesuffix("/ws")
        assert said.endswith(f"cannot connect: no server answered at {where} — is it running?"), said
        assert "Error" not in said and "Errno" not in said, said


@pytest.mark.parametrize("kind", [WatchApp, ArenaApp])
async def test_r_tries_the_server_again(kind, make_server, tmp_path) -> None:
    """Once a server runs, `r` (the footer's "refresh") connects: it did nothing while not
    connected, and the app had to be quit and started again."""
    from client.library import Unreachable

    server = await make_server()
    real = connector(server.ws_url, "ada", str(tmp_path / "token"))
    tries = []

    async def connect():
        tries.append(1)
        if len(tries) == 1:  # no server yet
            raise Unreachable([])
        return await real()

    app = kind(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        title = app.query_one("#list-title")
        await until(pilot, lambda: "not connected" in rendered(title), what="the connection given up")
        assert "r tries again" in rendered(title)
        await pilot.press("r")
        await until(pilot, lambda: app.session is not None, what="connected")
        await until(pilot, lambda: "not connected" not in rendered(title), what="the list")
        assert "cannot connect" not in rendered(app.query_one("#status"))
