"""`solrace arena` in the terminal: the plain view functions, and the app against a real
server (in this process): list the arenas, open one, join, follow the live standings."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.widgets import DataTable
from waiting import DEADLINE

from client.tui.arena_app import ArenaApp
from client.tui.arena_view import (
    arena_header,
    arena_list,
    arena_row,
    races_line,
    standings_lines,
    standings_title,
    time_left,
    winners_line,
)
from client.tui.net import connector
from protocol import messages as m

from .helpers import rendered, until

T = 1_764_547_200_000
ARENA = {"id": "a-1", "name": "Cup", "game": "fours-up", "starts": T, "ends": T + 600_000, "players": 7}


def row(rank, player, points, *, fire=False):
    return {
        "rank": rank,
        "player": player,
        "name": player.upper(),
        "points": points,
        "races": 3,
        "wins": 1,
        "fire": fire,
    }


def test_time_left_and_the_list_row():
    assert time_left(ARENA, T - 90_000) == "starts in 1:30"
    assert time_left(ARENA, T + 60_000) == "9:00 left"
    assert time_left(ARENA, T + 600_000) == "over: the last races are finishing"
    assert time_left({**ARENA, "final": True}, T + 700_000) == "final standings"
    assert arena_row({**ARENA, "status": "running"}, T) == ("Cup", "Fours Up", "running", "10:00 left", "7")
    # the list's time is short: the status column says the rest
    assert arena_row(ARENA, T - 5_290_000)[3] == "in 1:28:10"
    assert arena_row(ARENA, T + 600_000)[3] == "finishing"
    assert arena_row({**ARENA, "final": True}, T + 700_000)[3] == "final"


# A scheduled arena as the server names it: a long id, a long name, the longest game name.
LONG: dict[str, Any] = {
    "id": "hourly-double-aces-and-kings-29412480",
    "name": "Hourly Double Aces and Kings · 20:00 UTC",
    "game": "double-aces-and-kings",
    "status": "upcoming",
    "starts": T,
    "ends": T + 3_600_000,
    "players": 123,
}


@pytest.mark.parametrize("width", [78, 128])  # 80 and 130 columns, less the scrollbar
def test_the_list_fits_the_window_every_column_visible(width):
    widths, rows = arena_list([LONG, ARENA], T - 5_290_000, width)
    assert sum(widths) + 2 * len(widths) <= width  # and each cell padded 1 either side
    for row in rows:
        for cell, w in zip(row, widths, strict=True):
            assert all(len(line) <= w for line in cell.split("\n"))
    assert rows[0][1:] == ("Double Aces and Kings", "upcoming", "in 1:28:10", "123")
    assert LONG["id"] not in rows[0]
    if width < 100:  # the name gives way: whole on two lines, broken between words
        assert rows[0][0] == "Hourly Double Aces and\nKings · 20:00 UTC"
    else:
        assert rows[0][0] == LONG["name"]
    assert rows[1][0] == "Cup"


def test_a_very_narrow_list_wraps_then_cuts_the_game_then_the_name():
    widths, rows = arena_list([LONG], T - 5_290_000, 60)
    assert sum(widths) + 2 * len(widths) <= 60
    assert rows[0][2:] == ("upcoming", "in 1:28:10", "123")
    # two lines each at most, the rest cut with an ellipsis
    assert rows[0][1] == "Double\nAces and …" and rows[0][0].count("\n") == 1 and rows[0][0].endswith("…")


def test_standings_lines_mark_me_and_show_the_rows_around_me():
    board = {
        "count": 40,
        "top": [row(1, "a", 9, fire=True), row(2, "b", 7)],
        "around": [row(19, "me", 2), row(2, "b", 7)],
    }
    lines = standings_lines(board, "me")
    assert lines[0].strip().startswith("1. A") and "on fire" in lines[0]
    assert lines[2].strip() == "…"
    assert lines[3].startswith(">") and "ME" in lines[3] and "2 pts" in lines[3]
    assert len(lines) == 4  # b is not repeated
    assert standings_title(board) == "Standings · 40 players"
    assert standings_lines({"top": [], "around": []}, "me") == ["  nobody has joined yet"]


def test_winners_once_final_only():
    board = {"final": True, "top": [row(1, "a", 9), row(2, "b", 7), row(3, "c", 0), row(4, "d", 0)]}
    assert winners_line(board) == "Winners: 1. A (9 pts), 2. B (7 pts)"
    assert winners_line({**board, "final": False}) is None
    assert winners_line({"final": True, "top": [row(1, "a", 0)]}) == "Winners: nobody scored"


def test_header_and_races_line():
    data = {
        "arena": {**ARENA, "seats": 2, "time_limit_s": 300, "berserk": True},
        "joined": True,
        "race": "r1",
        "races": [{"race": "r0", "rank": 1, "points": 2}],
        "featured": "r9",
    }
    head = arena_header(data, T + 60_000)
    assert head.splitlines() == [
        "Cup — Fours Up",
        "2 seats · 5 min races · berserk allowed · 9:00 left",
        "you are in: paired (your race: below) · id a-1",  # the list has no id column
    ]
    assert races_line(data) == "your race: r1 · your places: #1 +2 pts · featured: r9"
    two = [{"race": "r0", "rank": 2, "points": 1}, {"race": "r2", "rank": 1, "points": 3}]
    assert races_line({"races": two}) == "your places: #2 +1 pt, #1 +3 pts · no featured race now"
    assert races_line({"races": []}) == "no featured race now"


# The paired race stays in its countdown for the whole test: once it starts, the app forgets it
# (`paired` is the race counting down), and a loaded machine can take 3 s to reach the check.
SERVER = {
    "arena_create": 1,
    "arena_schedule": "off",
    "arena_tick_ms": 100,
    "arena_update_ms": 100,
    "countdown_ms": 600_000,
}


@pytest.mark.timeout(120)
async def create_long(host, in_ms: int = 0, **extra) -> None:
    """The LONG arena, for an hour from `in_ms` from now."""
    await host.request(
        m.ArenaCreate(
            arena=LONG["id"],
            game=LONG["game"],
            duration_ms=3_600_000,
            starts=int(time.time() * 1000) + in_ms,
            name=LONG["name"],
            **extra,
        )
    )


async def test_list_open_join_and_follow_the_standings(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server(**SERVER)
    async with connect(server.ws_url, name="host") as host:
        await host.request(
            m.ArenaCreate(arena="tui-cup", game="fours-up", duration_ms=120_000, name="TUI Cup")
        )
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), refresh_s=0.3)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: any(a["id"] == "tui-cup" for a in app.arenas), what="listed")
            table = app.query_one("#arenas", DataTable)
            table.move_cursor(row=[a["id"] for a in app.arenas].index("tui-cup"))
            await pilot.press("enter")
            await until(pilot, lambda: app.arena_id == "tui-cup", what="opened")
            assert "TUI Cup" in rendered(app.query_one("#arena-info"))
            assert "not joined" in rendered(app.query_one("#arena-info"))
            await pilot.press("j")
            await until(pilot, lambda: app.data.get("joined"), what="joined")
            # another player joins: the two are paired; the live standings show both
            await host.arena_join("tui-cup")
            await until(
                pilot,
                lambda: "2 players" in rendered(app.query_one("#standings-title")),
                timeout=DEADLINE,
                what="live standings",
            )
            standings = rendered(app.query_one("#standings"))
            assert "ada" in standings and "host" in standings
            # paired: the race's snapshot names it in the status line
            await until(pilot, lambda: "paired: race" in rendered(app.query_one("#status")), what="paired")
            assert app.paired is not None and app.paired in rendered(app.query_one("#status"))
            await pilot.press("w")
            await until(pilot, lambda: app.data and not app.data.get("joined"), what="withdrawn")
            await pilot.press("escape")
            await until(pilot, lambda: app.arena_id is None, what="back to the list")


async def test_the_list_at_80_columns_shows_every_column(make_server, tmp_path):
    """Each column of an arena's row is on the screen at 80 columns, and its long name whole
    on two lines; widened, the name is whole on one."""
    from client.library.connection import connect

    server = await make_server(arena_create=1, arena_schedule="off")
    async with connect(server.ws_url, name="host") as host:
        await create_long(host, in_ms=2_950_000)  # listed: it starts within the hour
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.arenas, what="listed")
            table = app.query_one("#arenas", DataTable)

            def line() -> str:
                return table.render_line(1).text  # the first row, under the header

            await until(pilot, lambda: "Double Aces and Kings" in line(), what="the row drawn")
            header = table.render_line(0).text
            for column in ("arena", "game", "status", "time", "players"):
                assert column in header
            assert "upcoming" in line() and "in 49:" in line() and line().rstrip().endswith("0")
            # the name whole on two lines of its row; the next row under them
            assert "Hourly Double Aces and" in line() and "…" not in line()
            assert table.render_line(2).text.strip().startswith("Kings · 20:00 UTC")
            await pilot.resize_terminal(130, 24)
            await until(pilot, lambda: LONG["name"] in line(), what="the whole name once wider")
