"""A move typed is taken in any case, and one too long for any move is told so in words:

* `DRAW` and `Draw` were taken (the command line lowered `d` and `draw`), but `T5>F12`, the
  same notation in capitals, was refused "not a move: expected draw, SRC>DST…". The notation
  has no capitals (docs/rules.md §1.3: a move's one spelling is lower case), so a move typed
  in capitals is sent in it.
* A line longer than any move (`t1:99999999999999999999>t2`) got the server's validation
  text of its message's field: "`move`: Expected `str` of length <= 16".

Against a real server (in this process)."""

from __future__ import annotations

import pytest

from client.tui.intent import Intent
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import ready_and_started, rendered, until

pytestmark = pytest.mark.timeout(120)


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


async def test_moves_in_capitals_and_too_long(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    url = server.ws_url
    app = PlayApp(
        connector(url, "ada", str(tmp_path / "token")), Intent("create", "racing-aces", 1), server_url=url
    )
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        app.say("")
        await pilot.press(*"t1:99999999999999999999>t2", "enter")
        await until(pilot, lambda: status(app), what="the long line answered")
        said = status(app)
        assert "Expected" not in said and "`" not in said, said
        assert said.startswith("not a move: too long"), said
        assert app.model.n == 0
        app.say("")

        # A move other than `draw` (taken in capitals already): drawn for until one is legal.
        while not (moves := [mv for mv in app.model.legal if mv != "draw"]):
            played = app.model.n
            await pilot.press("d", "enter")
            await until(pilot, lambda n=played: app.model.n == n + 1 and app.model.legal, what="a draw")
        played, move = app.model.n, moves[0]
        await pilot.press(*move.upper(), "enter")
        await until(pilot, lambda: app.model.n == played + 1, what="the move in capitals played")
        assert status(app).startswith(f"{move} ✓"), status(app)


def test_only_ascii_is_lowered() -> None:
    from client.tui.command_line import move_typed

    assert move_typed("T5>F12") == "t5>f12" and move_typed("t2:3>T5") == "t2:3>t5"
    # The Kelvin sign lowers to an ASCII k: a non-ASCII line is left as typed (never a move).
    assert move_typed("\u212a>f1") == "\u212a>f1"
