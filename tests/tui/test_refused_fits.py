"""`solrace play --join RACE` of a race that does not exist, at 80x24: the board says the
whole refusal and what to do, on lines within the screen. The board does not wrap: the line
"cannot join race r…: no such race — 'menu' for another race, ctrl+q to quit" went off its
right edge ("…ctrl+q to q"), behind a scrollbar. Against a real server."""

from __future__ import annotations

import pytest

from client.tui.intent import Intent
from client.tui.model import RaceModel
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_text import lobby_text
from client.tui.widgets import BoardView

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(60)

RACE = "r0123456789abcdef"  # as long as a real race id


def screen_lines(app: PlayApp) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def test_a_refusal_is_said_in_lines_of_the_board_width() -> None:
    refused = "cannot join race " + RACE + ": " + "a long reason " * 12 + "— 'menu' for another race"
    text = lobby_text(RaceModel(), None, refused)
    assert all(len(line) <= 78 for line in text.splitlines()), text
    assert text.split() == refused.split()  # every word said, in order


async def test_a_refused_join_is_whole_on_an_80x24_board(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(
        connector(server.ws_url, "ada", str(tmp_path / "token")),
        Intent("join", race=RACE),
        server_url=server.ws_url,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.query_one("#board", BoardView)
        await until(pilot, lambda: "ctrl+q to quit" in rendered(board), what="the refusal on the board")
        said = rendered(board).split()
        assert said[:4] == ["cannot", "join", "race", RACE + ":"], said

        def shown() -> bool:  # the board's words, all on the screen above the status line
            top = " ".join(line.strip() for line in screen_lines(app)[: board.region.bottom])
            return " ".join(said) in " ".join(top.split())

        await until(pilot, shown, what="the whole refusal on the screen")
