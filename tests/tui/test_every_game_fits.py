"""A deal of every game is whole in an 80x24 terminal: no row of its board scrolled out of
sight, no column cut. Double Aces and Kings' groups, stacked as the web's columns, took 17
rows where the race screen has 14: the terminal lays them out in rows of its own
(board.TERMINAL_ROWS)."""

from __future__ import annotations

import pytest

from client.tui.board import layout_board, parse_view
from protocol.rules.engine import deal
from protocol.rules.games import GAMES

from .helpers import offline_play, race_started, until

SEED = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_deal_of_every_game_is_whole_at_80x24(game: str) -> None:
    app, _ = offline_play(game, seed=SEED, countdown_ms=50)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        board, scroll = app.query_one("#board"), app.query_one("#board-scroll")
        await until(pilot, lambda: board.virtual_size.height > 1, what="the board laid out")
        assert board.virtual_size.height <= scroll.region.height, (board.virtual_size, scroll.region)
        assert board.virtual_size.width <= scroll.region.width, (board.virtual_size, scroll.region)
        assert scroll.max_scroll_y == 0 and scroll.max_scroll_x == 0


@pytest.mark.parametrize("game", list(GAMES))
def test_every_board_is_76_columns_at_most_with_its_waste_full(game: str) -> None:
    # 80 columns, less the board's padding and a vertical scrollbar (the watch app's boards).
    g = deal(game, SEED)
    for _ in range(20):
        if "draw" in g.legal_moves():
            g.play("draw")
    canvas = layout_board(parse_view(g.view_text()))
    assert canvas.width <= 76, canvas.text()
