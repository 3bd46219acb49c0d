"""`solrace play` with no server at its address (a player's first try, before `make run`)
says the ways on, on the board: start a server, name the right one with --url, or practise
offline. It said only "cannot connect: no server answered (…ConnectionRefusedError…)" and
"ctrl+q quits": a dead end. The status line says why in plain words ("no server answered at
127.0.0.1:PORT — is it running?"), never the exception's class.

The ways on, and the command line's 'retry', stay until a connection opens: the redraw that
follows the start's resize (a moment later), or any resize, put the menu's "choose a game…"
and "command: menu (choose a race), quit" in their place (`menu` is "nothing to act on" then).
Nor does a redraw while still connecting say "choose a game…"."""

from __future__ import annotations

import socket

from textual.widgets import Input

from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_commands import CANNOT_CONNECT_PLACEHOLDER, CONNECTING_PLACEHOLDER
from client.tui.widgets import BoardView

from .helpers import never_connects, rendered, until


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: a port the system just gave, closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"ws://127.0.0.1:{port}/ws"


async def test_no_server_says_how_to_start_one_or_play_offline(tmp_path) -> None:
    url = closed_port_url()
    app = PlayApp(connector(url, "ada", str(tmp_path / "token")), server_url=url)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.connect_failed, what="the connection given up")
        board = app.query_one("#board", BoardView)
        await until(pilot, lambda: "solrace play --offline" in rendered(board), what="the ways on")
        text = rendered(board)
        assert f"No solrace server answered at {url}" in text
        assert "solrace serve" in text and "--url" in text
        assert all(len(line) <= 78 for line in text.splitlines()), text  # the board does not wrap
        # The reason stays said, in plain words: the exception (ConnectionRefusedError…) is for the log.
        status = rendered(app.query_one("#status"))
        assert (
            f"no server answered at {url.removeprefix('ws://').removesuffix('/ws')} — is it running?"
            in status
        )
        assert "Error" not in status and "Errno" not in status, status

        # Past a redraw: a resize (as the one of the start), then a redraw for sure.
        await pilot.resize_terminal(90, 26)
        await until(pilot, lambda: (app.size.width, app.size.height) == (90, 26), what="the resize")
        app.redraw()
        await pilot.pause()
        assert rendered(board) == text
        assert app.query_one("#cmd", Input).placeholder == CANNOT_CONNECT_PLACEHOLDER


async def test_a_redraw_while_connecting_still_says_connecting() -> None:
    app = PlayApp(never_connects, server_url="ws://127.0.0.1:8765/ws")
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.query_one("#board", BoardView)
        await until(pilot, lambda: board.region.height > 0, what="the board drawn")
        app.redraw()
        await pilot.pause()
        assert "connecting to 127.0.0.1:8765…" in rendered(board)
        assert "choose a game" not in rendered(board)
        assert app.query_one("#cmd", Input).placeholder == CONNECTING_PLACEHOLDER
