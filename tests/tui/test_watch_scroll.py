"""`solrace watch` at 80x24: two boards do not fit, so the race view scrolls them (PgUp,
PgDn, up, down), keys shown in the footer of the race view only; "Esc: back" is said once,
by the footer."""

from __future__ import annotations

from textual.widgets import DataTable, Footer

from client.tui.offline import LocalSession
from client.tui.watch_app import WatchApp
from client.tui.widgets import BoardView

from .helpers import footer_keys, rendered, until


async def test_the_boards_scroll_at_80x24_and_the_list_keeps_its_keys():
    # The bots make no move: a board's height follows its piles, and a board growing or
    # shrinking under the keys moved the scroll's bounds (a page down clamped back to 0 when a
    # board shrank; a loaded machine saw it). Dealt boards keep their height. Their first move
    # is an hour away, so both races run all along (bots allowed no move at all finished at
    # their first turn, and the races left the list under the keys).
    session = LocalSession(name="w", watch_demo=True, countdown_ms=50, rival_interval=3600)

    async def connect():
        return session

    app = WatchApp(connect, refresh_s=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.races) == 2, what="race list")
        await until(pilot, lambda: "refresh list" in footer_keys(app), what="the list's keys")
        assert not {"boards up", "boards down"} & set(footer_keys(app))
        # on the list, down moves the table's cursor (the boards' keys are not checked in)
        table = app.query_one("#races", DataTable)
        # (a key pressed before the table has the focus goes elsewhere: a loaded machine saw it)
        await until(pilot, lambda: table.row_count == 2 and app.focused is table, what="the rows, focused")
        await pilot.press("down")
        await until(pilot, lambda: table.cursor_row == 1, what="the cursor a row down")
        await pilot.press("up")
        await until(pilot, lambda: table.cursor_row == 0, what="the cursor a row up")
        # The three-deck game's race: its two dealt boards are taller than the view (the two
        # races start at once, so either may be listed first).
        tall = next(i for i, r in enumerate(app.races) if r["game"] == "racing-aces")
        for _ in range(tall):
            await pilot.press("down")
        await until(pilot, lambda: table.cursor_row == tall, what="the cursor on the tall race")
        await pilot.press("enter")
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="two boards")
        keys = await until(pilot, lambda: footer_keys(app).get("boards down") and footer_keys(app))
        assert keys["boards up"] and keys["back to the list"] and "refresh list" not in keys

        def footer_fits() -> bool:  # the footer's keys (the palette's too) side by side, within 80
            drawn = sorted((k.region for k in app.query_one(Footer).children), key=lambda r: r.x)
            return (
                len(drawn) == 5
                and all(a.right <= b.x for a, b in zip(drawn, drawn[1:]))
                and drawn[-1].right <= 80
            )

        await until(pilot, footer_fits, what="the footer's keys within 80 columns")
        boards = app.query_one("#boards")
        await until(pilot, lambda: boards.max_scroll_y > 0, what="boards taller than the view")
        second = app.query(BoardView).last()

        def second_shown() -> bool:  # the second board, whole
            return second.region.y >= boards.region.y and second.region.bottom <= boards.region.bottom

        assert boards.scroll_y == 0 and not second_shown()
        await pilot.press("pagedown")
        await until(pilot, lambda: boards.scroll_y > 0, what="a page down")
        while boards.scroll_y < boards.max_scroll_y and not second_shown():
            at = boards.scroll_y
            await pilot.press("pagedown")
            await until(pilot, lambda at=at: boards.scroll_y > at, what="another page down")
        await until(pilot, second_shown, what="the second board on the screen")
        # Read where the scroll ends, not where it passes (when a page down scrolled smoothly, a
        # loaded machine read a mid-way line, and "a line up" from there never came).
        await until(pilot, lambda: boards.scroll_y == boards.scroll_target_y, what="the scroll settled")
        at = boards.scroll_y
        await pilot.press("up")
        await until(pilot, lambda: boards.scroll_y == at - 1, what="a line up")
        await pilot.press("down")
        await until(pilot, lambda: boards.scroll_y == at, what="a line down")
        await pilot.press("pageup")
        await until(pilot, lambda: boards.scroll_y < at, what="a page up")
        assert table.cursor_row == tall  # the hidden list's cursor did not move
        # "Esc: back" only in the footer
        assert "Esc" not in rendered(app.query_one("#race-info"))
        assert "Esc" not in rendered(app.query_one("#status"))
        await pilot.press("escape")
        await until(pilot, lambda: app.model is None, what="back to the list")
        await until(pilot, lambda: "refresh list" in footer_keys(app), what="the list's keys again")
        assert not {"boards up", "boards down"} & set(footer_keys(app))
