"""The daily challenge's table and "Your races" at 80x24, after a daily attempt of the
widest game (a real server in this process): every column is on the screen, the daily's long
cells cut with an ellipsis (at 80 columns the streak and the rating were pushed off it), and
"Your races"' cells whole."""

from __future__ import annotations

import re

import pytest
import waiting
from must import must

from client.tui.daily_screen import DailyScreen
from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.recent_screen import RecentScreen

from .helpers import click_shown, until

pytestmark = pytest.mark.daily

TIME = re.compile(r" \d+:\d\d\.\d ")  # a race's time in the table (client/tui/text.py `duration`)


def screen_lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


async def test_the_daily_and_recent_tables_fit_80x24(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(
        connector(server.ws_url, "ada", str(tmp_path / "token")), default_game="double-aces-and-kings"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        # Mounted before it is dismissed: a menu dismissed first ran its on_mount on no widgets
        # (a loaded machine did), as no player's choice can.
        await until(
            pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen.is_mounted, what="the menu"
        )
        app.screen.dismiss(Intent("daily", "double-aces-and-kings"))
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="attempt runs")
        await pilot.press(*"draw", "enter")
        await until(pilot, lambda: app.model.n == 1, what="a move acked")
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        session = must(app.session)

        async def listed():
            return bool((await session.request("recent"))["races"])

        await waiting.until(listed, what="listed")
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await click_shown(pilot, "#daily")
        await until(pilot, lambda: isinstance(app.screen, DailyScreen), what="daily")

        def rows_drawn() -> bool:  # each game's row is filled by its own request
            lines = screen_lines(app)
            attempt = any("#1 of 1" in line and "1 day" in line for line in lines)
            return attempt and sum("0 played" in line for line in lines) == 3

        await until(pilot, rows_drawn, what="every game's row")
        lines = screen_lines(app)
        assert any(
            "game" in line and "today" in line and "your attempt" in line and "streak" in line
            for line in lines
        )
        assert any("0/208 home · #1 of 1" in line and "1 day" in line for line in lines), lines
        # The day's facts whole in every row (the clock is said once, above the table).
        assert any("Double Aces and Kings" in line and "1 played" in line for line in lines), lines
        assert sum("0 played" in line for line in lines) == 3, lines
        assert any(line.rstrip(" │").endswith("per attempt") for line in lines), lines
        # A narrower window cuts the rows again; a wider one gives their cells back whole.
        await pilot.resize_terminal(60, 24)
        await until(
            pilot, lambda: any("Double Aces and Kin… " in line for line in screen_lines(app)), what="cut"
        )
        await pilot.resize_terminal(120, 24)
        await until(pilot, lambda: any("Kings  1 played" in line for line in screen_lines(app)), what="whole")
        await pilot.resize_terminal(80, 24)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await click_shown(pilot, "#recent")
        await until(pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen.races, what="recent")
        await until(pilot, lambda: any(" daily " in line for line in screen_lines(app)), what="the row drawn")
        lines = screen_lines(app)
        assert any(" when " in line and " time " in line and "rating" not in line for line in lines), (
            lines
        )  # a guest: no rating
        # The attempt's time whole, however long it took (seconds on a loaded machine), and the
        # game's name whole at 80 columns (it was cut to "Double Aces a…"; an account's table,
        # with its rating column, puts it on two lines: tests/tui/test_recent_fits.py).
        row = next(i for i, line in enumerate(lines) if " daily " in line)
        assert "Double Aces and Kings" in lines[row] and TIME.search(lines[row]), lines
        assert not any("…" in line for line in lines[row - 1 : row + 2]), lines
        # In the details under the table, drawn on their own: waited for, not read with the row.
        await until(pilot, lambda: "0/208 cards home" in " ".join(screen_lines(app)), what="the details")
