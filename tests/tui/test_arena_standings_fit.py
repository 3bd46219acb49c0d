"""An arena's standings at 80x24 keep your own row on the screen: the top ten, a gap and the
seven rows around yours took 18 rows where the screen has about 12, and yours, at the
bottom, was past its edge. The top gives way first, then the rows farthest from yours."""

from __future__ import annotations

from typing import Any

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.arena_view import standings_lines
from client.tui.net import connector

from .helpers import until
from .test_arena_tui import LONG, SERVER, create_long


def row(rank: int, player: str) -> dict[str, Any]:
    return {"rank": rank, "player": player, "name": player, "points": 40 - rank, "races": 3, "wins": 1}


def board(me: str) -> dict[str, Any]:
    """40 players, you 20th: the top ten and the three either side of you."""
    around = [row(i, me if i == 20 else f"p{i}") for i in range(17, 24)]
    return {
        "arena": LONG["id"],
        "count": 40,
        "top": [row(i, f"p{i}") for i in range(1, 11)],
        "around": around,
    }


def test_the_rows_give_way_top_first_then_farthest_from_yours() -> None:
    lines = standings_lines(board("me"), "me", 11)
    assert len(lines) == 11 and lines[0].strip().startswith("1. p1") and lines[3].strip() == "…"
    assert [line.split(".")[0].strip(" >") for line in lines[4:]] == [str(i) for i in range(17, 24)]
    assert any(line.startswith(">") for line in lines)
    few = standings_lines(board("me"), "me", 5)
    assert any(line.startswith(">") for line in few) and len(few) <= 6
    assert len(standings_lines(board("me"), "me")) == 18  # no rows given: every one


@pytest.mark.timeout(120)
async def test_your_row_is_on_the_screen_at_80x24(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(**SERVER)
    async with connect(server.ws_url, name="host") as host:
        await create_long(host, berserk=True)
        app = ArenaApp(
            connector(server.ws_url, "ada", str(tmp_path / "token")), arena=LONG["id"], refresh_s=60
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.arena_id == LONG["id"] and app.session is not None, what="opened")
            me = app.session.player  # type: ignore[union-attr]
            ours = board(me)

            def mine_shown() -> bool:
                if app.board is not ours:
                    # Put in again: the server's first `arena_update` to a new watcher (within
                    # ARENA_UPDATE) may come after it and bring the real standings, without ada
                    # (fc27: the row never showed in 30 s).
                    app.board = ours
                    app.draw_arena()
                    return False
                strips = app.screen._compositor.render_strips()
                return any("".join(seg.text for seg in s).strip().startswith(">  20.") for s in strips)

            await until(pilot, mine_shown, what="your row on the screen")
