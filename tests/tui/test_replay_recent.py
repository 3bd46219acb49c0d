"""The replay viewer opened from "Your races" in `solrace play`, against a real server (in
this process) and a real Redis: Enter on a finished race fetches its replay with the app's
own session and shows it move by move over the list; Esc comes back to the list; a daily
attempt of today is refused in one sentence under the list, its moves sealed until the day
closes."""

from __future__ import annotations

import pytest
import waiting
from textual.widgets import DataTable

from client import library as client
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.recent_screen import RecentScreen
from client.tui.replay_screen import ReplayScreen
from client.tui.replay_text import refusal_text
from protocol import messages as m

from .helpers import click_shown, player_id, rendered, until
from .test_replay_cli import finished_race

# A daily attempt starts on the real clock (tests/conftest.py: pytest_runtest_protocol).
pytestmark = [pytest.mark.timeout(120), pytest.mark.daily]

GAME = "fours-up"


async def test_enter_on_a_race_opens_its_replay(server, tmp_path) -> None:
    url = server.ws_url
    async with client.connect(url, name="ada") as a:
        daily = await a.request(m.DailyStart(game=GAME))
        await a.wait_for(m.Started, lambda ev: ev.race == daily.race, timeout=20)
        await a.finish(daily.race)
        await a.wait_for(m.End, lambda ev: ev.race == daily.race, timeout=20)
        race, _, acks, _ = await finished_race(a, None, moves=(9, 0), private=True)
        mine = acks[player_id(a)]
        moves = len(mine)
        token_file = tmp_path / "token"
        token_file.write_text(f"{a.token}\n")

    app = PlayApp(connector(url, None, str(token_file)), server_url=url, default_game=GAME)
    async with app.run_test(size=(130, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        session = app.session
        assert session is not None and session.player == a.player

        async def listed() -> bool:  # the server writes each race within moments of its end
            return len((await session.request("recent"))["races"]) == 2

        await waiting.until(listed, what="both races in the recent list")
        await click_shown(pilot, "#recent")
        screen: RecentScreen = await until(
            pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen, what="Your races"
        )
        await until(
            pilot, lambda: screen.query_one("#recent-races", DataTable).row_count == 2, what="both rows"
        )
        assert [r["race"] for r in screen.races] == [race, daily.race]  # newest first
        detail = rendered(screen.query_one("#recent-detail"))
        assert "Enter views it here" in detail and "\nsolrace replay " in detail

        # Enter on the private race of one's own: no invite needed, the session is its player's.
        await pilot.press("enter")
        viewer: ReplayScreen = await until(
            pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen, what="the viewer"
        )
        status = viewer.query_one("#replay-status")
        await until(pilot, lambda: f"move 0 of {moves} · the deal" in rendered(status), what="the deal")
        assert race in rendered(viewer.query_one("#replay-title"))
        await pilot.press("end")
        await until(pilot, lambda: f"move {moves} of {moves} · {mine[-1].move}" in rendered(status))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="back to Your races")

        # Today's daily attempt: refused, in one sentence under the list; the Replay button too.
        await pilot.press("down")
        await until(
            pilot, lambda: screen.query_one("#recent-races", DataTable).cursor_row == 1, what="the daily row"
        )
        sealed = refusal_text("daily-open", daily.race, flags=False)
        await pilot.press("enter")
        await until(pilot, lambda: rendered(screen.query_one("#recent-error")) == sealed, what="the refusal")
        screen.say("")
        await click_shown(pilot, "#recent-replay")
        await until(pilot, lambda: rendered(screen.query_one("#recent-error")) == sealed, what="again")
        assert app.screen is screen
