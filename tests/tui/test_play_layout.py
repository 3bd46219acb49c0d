"""The race screen in an 80x24 terminal (offline session, textual's pilot): a Racing Aces
board is whole, each player's bar is one line, PgUp/PgDn scroll a board taller than its rows
while the command line keeps the focus, and a click on the board leaves the focus there."""

from __future__ import annotations

from .helpers import offline_play, race_started, until


async def test_a_racing_aces_board_is_whole_in_80x24() -> None:
    app, _ = offline_play("racing-aces", countdown_ms=50)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.pause()
        scroll = app.query_one("#board-scroll")
        board = app.query_one("#board")
        assert board.virtual_size.height <= scroll.region.height, (board.virtual_size, scroll.region)
        bars = app.query_one("#bars")
        assert bars.region.height == 1 + len(app.model.players)  # its rule, then a line each
        assert app.query_one("#hints").region.height == 1
        assert app.focused is app.query_one("#cmd")


async def test_page_keys_scroll_the_board_and_a_click_keeps_the_command_line() -> None:
    app, _ = offline_play("double-aces-and-kings", countdown_ms=50)
    # Every game's deal is whole at 80x24 (test_every_game_fits.py): 18 rows leave the board 8.
    async with app.run_test(size=(80, 18)) as pilot:
        await race_started(pilot)
        scroll = app.query_one("#board-scroll")
        await until(pilot, lambda: scroll.max_scroll_y > 0, what="a board taller than its rows")
        await pilot.press("pagedown")
        await until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y, what="scrolled down")
        await pilot.press("pageup")
        await until(pilot, lambda: scroll.scroll_y == 0, what="scrolled up")
        await pilot.click("#board", offset=(2, 2))
        await pilot.pause()
        assert app.focused is app.query_one("#cmd")


async def test_a_berserks_note_is_on_its_own_line_and_the_header_never_wraps() -> None:
    app, _ = offline_play("double-aces-and-kings", countdown_ms=50)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        me = app.model.players[app.model.me]
        me.berserk = True
        app.refresh_info()
        await pilot.pause()
        info = app.query_one("#info")
        first, second = str(info.render()).split("\n")
        assert "left" in first and "berserk" not in first
        assert second.startswith("you: ") and "(berserk: half the clock)" in second
        shown = [
            "".join(seg.text for seg in strip)
            for strip in app.screen._compositor.render_strips()[info.region.y : info.region.bottom]
        ]
        assert "you: " in shown[1] and "berserk" in shown[1], shown  # not pushed out by a wrap


async def test_a_click_on_a_card_with_no_move_keeps_no_selection() -> None:
    from client.tui.board_input import targets_for
    from client.tui.widgets import BoardView

    app, _ = offline_play("racing-aces", countdown_ms=50)
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        board = app.model.board
        assert board is not None
        stuck = next(
            p for p in board.order
            if not p.startswith(("f", "s")) and board.cards(p) and board.cards(p)[-1] is not None
            and not targets_for(app.model.legal, (p, 1))
        )  # fmt: skip
        app.post_message(BoardView.PileClicked(stuck, None, 1))
        await until(
            pilot, lambda: "no legal move from here" in str(app.query_one("#status").render()), what="said"
        )
        assert app.selected is None
