"""Joining an arena that has not started says that pairing begins at its start: it said
"joined: you are paired whenever you are free" (and "you are in: paired whenever free") half
an hour before the first pairing."""

from __future__ import annotations

import time

import pytest
from textual.widgets import DataTable

from client.tui.arena_app import ArenaApp
from client.tui.arena_view import joined_said, joined_text
from client.tui.net import connector
from protocol import messages as m

from .helpers import rendered, until

T = 1_764_547_200_000
ARENA = {"id": "a-1", "name": "Cup", "game": "fours-up", "starts": T, "ends": T + 600_000}


def test_the_join_words_follow_the_arenas_clock() -> None:
    joined = {"arena": ARENA, "joined": True}
    assert joined_text(joined, T - 60_000) == "you are in: paired from its start"
    assert joined_said(joined, T - 60_000) == "joined: you are paired from the arena's start (starts in 1:00)"
    # once it runs: a race needs another free player (tests/tui/test_arena_waiting_words.py)
    assert (
        joined_text(joined, T + 1)
        == "you are in: waiting for another player to be free, then paired within seconds"
    )
    assert (
        joined_said(joined, T + 1)
        == "joined: a race needs two: you are paired as soon as another player is free"
    )
    assert joined_text({"arena": ARENA}, T - 60_000) == "not joined"


@pytest.mark.timeout(120)
async def test_joining_an_upcoming_arena_says_when_pairing_begins(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(arena_create=1, arena_schedule="off")
    async with connect(server.ws_url, name="host") as host:
        starts = int(time.time() * 1000) + 1_800_000  # in half an hour
        await host.request(
            m.ArenaCreate(arena="later-cup", game="fours-up", duration_ms=600_000, starts=starts)
        )
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: any(a["id"] == "later-cup" for a in app.arenas), what="listed")
            table = app.query_one("#arenas", DataTable)
            table.move_cursor(row=[a["id"] for a in app.arenas].index("later-cup"))
            await pilot.press("enter")
            await until(pilot, lambda: app.arena_id == "later-cup", what="opened")
            await pilot.press("j")
            await until(pilot, lambda: app.data.get("joined"), what="joined")
            status = app.query_one("#status")
            await until(pilot, lambda: "from the arena's start (starts in" in rendered(status), what="said")
            assert "whenever" not in rendered(status)
            assert "you are in: paired from its start" in rendered(app.query_one("#arena-info"))
