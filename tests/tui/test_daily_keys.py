"""The daily screen at 80x24 says what its keys do: the Play button names what it starts
(today's deal, the one ranked attempt: it read "Play today's"), and the line under the
buttons that Enter shows the highlighted game's leaderboard (nothing said so)."""

from __future__ import annotations

import pytest

from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import rendered, until
from .test_daily_tui import GAME, open_daily

pytestmark = [pytest.mark.timeout(120), pytest.mark.daily]


def screen_lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


async def test_play_and_enter_say_what_they_do_at_80x24(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_daily(pilot, app)
        await until(pilot, lambda: "one ranked attempt" in " ".join(screen_lines(app)), what="drawn")
        text = " ".join(" ".join(line.strip(" │").split()) for line in screen_lines(app))
        # The button's label whole on the screen, on one row.
        assert any("Play today's deal (one ranked attempt)" in line for line in screen_lines(app))
        # Enter named, with what it does; and Play's one attempt.
        assert "Enter: its leaderboard" in text
        assert "Play: its deal at once, your one ranked attempt of the day" in text
        await pilot.press("enter")
        board = screen.query_one("#daily-board-text")
        await until(pilot, lambda: "Fours Up · daily of" in rendered(board), what="Enter: the leaderboard")
