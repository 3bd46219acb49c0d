"""The menu's "Your races" at 80x24: every column on the screen and every cell whole (the
widest game's name on two lines), an account's rating column too. Nine columns were cut
at 80 columns: "Double Aces a…", "quick matc…", the rating's "1016? (+…". The cards home
and the moves are in the highlighted race's details, under the table."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App
from textual.widgets import DataTable

from client.tui.recent_screen import RecentScreen
from client.tui.recent_text import COLUMNS, recent_row

from .helpers import rendered, until

NOW = 1_764_000_000_000


def race(game: str, kind: str, **fields: Any) -> dict[str, Any]:
    entry = dict(race="r" + game[:6], game=game, kind=kind, players=3, rank=2, status="timeout")
    entry.update(at=NOW - 12 * 60_000, home=103, total=208, moves=1234, time_ms=3_599_900)
    return entry | fields


RACES = [
    race("double-aces-and-kings", "quick", rated=True, before={"rating": 1000}, after={"rating": 1016}),
    race("rouge-et-noir", "private", players=1, rank=1, status="finished", at=NOW - 40 * 86_400_000),
    race("racing-aces", "bot", rated=True, status="won", rank=1),
    race("fours-up", "daily", players=1, rank=1, time_ms=None),
    race("double-aces-and-kings", "arena", rated=True, before={"rating": 1210}, after={"rating": 1195}),
]


class Account:
    player, name, logged_in = "p1", "ada", True
    events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def server_now(self) -> int:
        return NOW

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        assert t == "recent"
        return {"t": "recent", "races": RACES}


async def test_every_column_whole_at_80x24() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RecentScreen(Account(), "ws://127.0.0.1:8765/ws")  # type: ignore[arg-type]
        app.push_screen(screen)
        table = await until(pilot, lambda: screen.races and screen.query_one("#recent-races", DataTable))
        await until(pilot, lambda: table.row_count == len(RACES) and table.region.area > 0, what="the rows")
        await pilot.pause()
        assert [str(c.label) for c in table.ordered_columns] == list(COLUMNS)
        # The columns inside the table's own width: none off its right edge.
        widths = sum(c.get_render_width(table) for c in table.ordered_columns)
        assert widths <= table.scrollable_content_region.width, (widths, table.scrollable_content_region)
        for i, entry in enumerate(RACES):
            cells = [str(c) for c in table.get_row_at(i)]
            whole = recent_row(entry, NOW)
            assert [" ".join(c.split()) for c in cells] == list(whole), (cells, whole)  # no "…"
        # what the table no longer has: the highlighted race's details say it
        assert "103/208 cards home · 1234 moves" in " ".join(
            rendered(screen.query_one("#recent-detail")).split()
        )
