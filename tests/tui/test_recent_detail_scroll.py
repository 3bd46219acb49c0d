"""The "Your races" details at 80x24, for a rated race whose details run past their box (its
rating, an arena's name, a server and a token file to name in the commands): every row of
them is brought on the screen from the table, where the focus stays, with the keys the
screen says. Only Tab to the box (which nothing said) or the mouse wheel reached the last
rows, the commands one copies."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import DataTable

from client.tui.recent_screen import RecentScreen
from client.tui.recent_text import KEYS_TEXT

from .helpers import rendered, until
from .test_recent_fits import RACES, Account

URL = "ws://games.example.org:18765/ws"
RATED = {
    **RACES[4],
    "race": "r09ebbd19b4b3339e",
    "arena": "evening-blitz",
    "private": True,
    "before": {"rating": 1210, "rd": 80},
    "after": {"rating": 1195, "rd": 72},
}


class Rated(Account):
    token_file = "/home/ada/.config/solrace/the-other-token"

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        return {"t": "recent", "races": [RATED, *RACES[:2]]}


def screen_lines(app: App[None]) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


async def test_every_row_of_a_rated_races_details_can_be_brought_on_screen() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RecentScreen(Rated(), URL)  # type: ignore[arg-type]
        app.push_screen(screen)
        await until(pilot, lambda: screen.races, what="the list")
        detail = screen.query_one("#recent-detail")
        box = screen.query_one("#recent-detail-scroll", VerticalScroll)
        await until(pilot, lambda: "solrace analyze" in rendered(detail), what="the details")
        await until(pilot, lambda: box.region.height > 0 and box.max_scroll_y > 0, what="laid out")
        await pilot.pause()
        rows = [detail.render_line(y).text.rstrip() for y in range(detail.size.height)]
        assert rows[0].startswith("race r09ebbd19b4b3339e") and "1210 → 1195" in rendered(detail)
        assert any(KEYS_TEXT in line for line in screen_lines(app)), "the keys are said"
        table = screen.query_one("#recent-races", DataTable)
        seen: set[int] = set()
        while True:
            top, lines = int(box.scroll_y), screen_lines(app)
            for y in range(top, min(len(rows), top + box.region.height)):
                line = lines[box.region.y + y - top]
                assert rows[y].strip() in line, (y, rows[y], line)
                seen.add(y)
            if top >= box.max_scroll_y:
                break
            await pilot.press("shift+down")
            await until(pilot, lambda top=top: int(box.scroll_y) > top, what=f"the details past row {top}")
        assert seen == set(range(len(rows))), (sorted(seen), rows)
        assert app.focused is table  # the arrows still pick a race

        # Another race's details start at their first row, not where the last one's were.
        await pilot.press("down")
        await until(pilot, lambda: table.cursor_row == 1 and box.scroll_y == 0, what="the next race's top")
        assert rendered(detail).startswith("race rdouble")
