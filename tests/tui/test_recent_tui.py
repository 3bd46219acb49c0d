"""The menu's "Your races" in `solrace play` against a real server (in this process) and a
real Redis (docs/protocol.md §9 `recent`): a guest plays a race of one seat to its end in
the race screen, then the menu's Your races lists it, newest first, with its result and
the commands that re-play and check it."""

from __future__ import annotations

import pytest
import waiting
from textual.widgets import DataTable

from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.recent_screen import RecentScreen
from client.tui.recent_text import EMPTY_TEXT, GUEST_NOTE

from .helpers import click_shown, rendered, until

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


def row(screen: RecentScreen, index: int) -> list[str]:
    table = screen.query_one("#recent-races", DataTable)
    return [str(c) for c in table.get_row_at(index)]


async def open_recent(pilot, app: PlayApp) -> RecentScreen:
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
    await click_shown(pilot, "#recent")
    screen: RecentScreen = await until(
        pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen, what="Your races"
    )
    return screen


async def test_a_guest_sees_the_race_it_just_played(make_server, tmp_path) -> None:
    server = await make_server()
    url = server.ws_url
    app = PlayApp(connector(url, "ada", str(tmp_path / "token")), server_url=url, default_game=GAME)
    async with app.run_test(size=(130, 45)) as pilot:
        # Nothing yet: the screen says what will show there.
        screen = await open_recent(pilot, app)
        detail = screen.query_one("#recent-detail")
        await until(pilot, lambda: EMPTY_TEXT in rendered(detail), what="the empty list said")
        assert GUEST_NOTE in rendered(screen.query_one("#recent-title"))
        await pilot.press("escape")

        # A race of one seat, played to its end in the race screen.
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        menu.dismiss(Intent("create", GAME, 1))
        await until(pilot, lambda: app.model.race_id is not None, what="race created")
        race = app.model.race_id
        await pilot.press(*"ready", "enter")
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")
        await pilot.press(*"draw", "enter")
        await until(pilot, lambda: app.model.n == 1, what="a move acked")
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        me = app.model.me
        assert me is not None
        home = app.model.players[me].home

        # The server writes it within moments of the end: wait for that, then back to the
        # menu, where Your races lists it.
        session = app.session
        assert session is not None

        async def listed() -> bool:
            return bool((await session.request("recent"))["races"])

        await waiting.until(listed, what="the race in the recent list")
        await pilot.press(*"menu", "enter")
        screen = await open_recent(pilot, app)
        await until(pilot, lambda: screen.races, what="the list loaded")
        assert [r["race"] for r in screen.races] == [race]
        await until(
            pilot, lambda: screen.query_one("#recent-races", DataTable).row_count == 1, what="the row"
        )
        cells = row(screen, 0)
        # a guest's table has no rating column (a guest plays no rated race)
        assert cells[1:] == ["Fours Up", "public", "solo", "finished", cells[5]]
        assert cells[0] in ("just now", "1 min ago") and cells[5] != "—"  # a declared finish has a time
        assert "1 race" in rendered(screen.query_one("#recent-title"))
        text = rendered(screen.query_one("#recent-detail"))
        assert f"{home}/104 cards home · 1 move" in text  # the cards home and moves: in the details
        assert text.startswith(f"race {race} · Fours Up · public")
        assert f"solrace verify --url {url} --race {race}" in text
        assert f"solrace analyze --url {url} --race {race}" in text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="back to the menu")
