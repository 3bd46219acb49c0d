"""`solrace watch`: the final boards open at their top. The live view's scroll was kept when a
race ended, so the final boards (under the ranking, which takes the bars' place) opened as
far down as the watcher had scrolled the delayed ones: part-way down the last board. Scrolling
the final boards then is the watcher's own, and stays."""

from __future__ import annotations

import pytest

from client.library.connection import connect
from client.tui.net import connector
from client.tui.watch_app import WatchApp
from client.tui.widgets import BoardView

from .helpers import two_player_race, until


@pytest.mark.timeout(120)
async def test_the_final_boards_open_at_the_top(make_server, tmp_path):
    server = await make_server()  # the delayed boards come while the race runs
    async with connect(server.ws_url, name="alice") as a, connect(server.ws_url, name="bob") as b:
        race = await two_player_race(a, b, "racing-aces")  # two boards taller than 24 rows
        app = WatchApp(connector(server.ws_url, "watcher", str(tmp_path / "token")), race=race)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: len(app.query(BoardView)) == 2, what="the delayed boards")
            boards = app.query_one("#boards")
            await until(pilot, lambda: boards.max_scroll_y > 0, what="boards taller than the view")
            while boards.scroll_y < boards.max_scroll_y:
                at = boards.scroll_y
                await pilot.press("pagedown")
                await until(pilot, lambda at=at: boards.scroll_y > at, what="a page down")
            assert boards.scroll_y > 0

            await a.finish(race)
            await b.finish(race)
            await until(pilot, lambda: app.final_shown, what="the final boards")
            assert boards.scroll_y == 0  # as they are shown
            await until(pilot, lambda: boards.max_scroll_y > 0, what="the final boards laid out")
            assert boards.scroll_y == 0
            first = app.query(BoardView).first()
            await until(pilot, lambda: first.region.y >= boards.region.y, what="the first board's top shown")

            # From here the scroll is the watcher's: a page down stays, whatever is drawn again.
            await pilot.press("pagedown")
            await until(pilot, lambda: boards.scroll_y > 0, what="a page down on the final boards")
            at = boards.scroll_y
            await pilot.resize_terminal(82, 24)  # draws the race again
            await until(pilot, lambda: app.size.width == 82, what="the new size")
            await pilot.pause()
            assert boards.scroll_y == at
