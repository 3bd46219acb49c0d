"""The watch app driven by the pilot against the offline session's bot races."""

from __future__ import annotations

from must import must
from textual.widgets import DataTable

from client.tui.offline import LocalSession
from client.tui.watch_app import WatchApp
from client.tui.watch_text import race_row
from client.tui.widgets import BoardView

from .helpers import rendered, until


def test_race_row():
    row = race_row(
        {
            "race": "r1",
            "game": "fours-up",
            "status": "running",
            "total": 104,
            "deadline": 70_000,
            "players": [{"name": "ada", "home": 10}, {"name": "bob", "home": 3}],
            "spectators": 2,
        },
        now=10_000,
    )
    assert row == ("r1", "Fours Up", "running", "1:00 left", "ada 10/104, bob 3/104", "2")


async def test_list_then_spectate_boards_and_bars():
    session = LocalSession(name="w", watch_demo=True, countdown_ms=50, rival_interval=0.02)

    async def connect():
        return session

    app = WatchApp(connect, refresh_s=0.2)
    async with app.run_test(size=(110, 50)) as pilot:
        await until(pilot, lambda: len(app.races) == 2, what="race list")
        table = app.query_one("#races", DataTable)
        assert table.row_count == 2
        assert "live public race" in rendered(app.query_one("#list-title"))
        race = app.races[0]["race"]
        await pilot.press("enter")
        await until(pilot, lambda: app.model is not None and len(app.model.boards) == 2, what="boards")
        assert must(app.model).race_id == race
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="board widgets")
        boards = [rendered(b) for b in app.query(BoardView)]
        assert all("f0" in b and "t0" in b for b in boards)
        assert "bot-1" in rendered(app.query_one("#race-bars")) and "bot-2" in rendered(
            app.query_one("#race-bars")
        )
        assert "boards live · these from" in rendered(app.query_one("#race-info"))  # and how old
        await until(pilot, lambda: any(p.home > 0 for p in must(app.model).players.values()), what="progress")
        await pilot.press("escape")
        await until(
            pilot, lambda: app.model is None and app.query_one("#list-view").display, what="back to list"
        )
        assert {"t": "unspectate", "race": race} in session.sent
