"""The final ranking of a race of 8 at 80x24: its tie-break notes made it 22 rows tall, the
board shrank to a row, and the seed's check and the status line fell off the screen with no
key to reach them (PgUp/PgDn scrolled only the board). In a short terminal the ranking is
capped; PgUp/PgDn scroll it while it is shown and taller than its box, else the board."""

from __future__ import annotations

import hashlib

from textual.containers import VerticalScroll
from textual.widgets import Static

from client.tui.model import PlayerRow, RaceModel
from client.tui.play_app import PlayApp

from .helpers import never_connects, rendered, until

SEED = "0123456789abcdef0123456789abcdef"


def ended_race_of_eight() -> RaceModel:
    model = RaceModel(me="p7", race_id="r1", game="racing-aces", status="finished", total=156)
    model.players = {f"p{i}": PlayerRow(f"p{i}", f"player{i}", home=40, status="finished") for i in range(8)}
    # as many cards home, reached one second apart: a tie-break note under each pair
    model.ranking = [
        dict(
            rank=i + 1,
            player=f"p{i}",
            name=f"player{i}",
            status="finished",
            won=False,
            home=40,
            moves=100 + i,
            home_at_ms=60_000 + 1000 * i,
            time_ms=None,
        )
        for i in range(8)
    ]
    model.seed, model.commitment = SEED, hashlib.sha256(SEED.encode()).hexdigest()
    return model


async def test_the_ranking_of_eight_fits_80x24_and_scrolls() -> None:
    app = PlayApp(never_connects)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen_stack[0].has_class("short"), what="the short layout")
        app.model = ended_race_of_eight()
        app.redraw()
        result = app.query_one("#result", Static)
        box = app.query_one("#result-box", VerticalScroll)
        status = app.query_one("#status", Static)
        await until(pilot, lambda: box.region.height > 0, what="the ranking shown")
        await pilot.pause()
        assert box.region.height <= 12, box.region
        assert app.screen.region.contains_region(status.region) and status.region.height > 0
        assert box.max_scroll_y > 0  # taller than its box: the seed's line is below
        assert "matches the deal's fingerprint" in rendered(result)
        await pilot.press("pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: box.scroll_y == box.max_scroll_y, what="scrolled to the end")
        seed_row = box.region.y + box.region.height - 1  # the box's last row shows the seed's line
        assert box.scroll_y > 0 and seed_row < status.region.y
