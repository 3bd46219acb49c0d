"""The terminal apps mark an account's name (✓) and a bot's ([bot]) where names show, never a
guest's who took the same name (docs/protocol.md §3 player map `account`): the text functions,
and the daily board of `solrace play` against a real server, driven by textual's pilot."""

from __future__ import annotations

import pytest

from client.library import connect
from client.tui.arena_view import standing_line
from client.tui.daily_screen import DailyScreen
from client.tui.model import PlayerRow, RaceModel
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_text import lobby_text
from client.tui.text import marked_name, ranking_lines
from client.tui.watch_text import race_row
from client.tui.widgets import bars_text
from protocol import messages as m

from .helpers import CHEAP_HASH, PW, click_shown, rendered, until
from .test_daily_tui import GAME, open_daily


def test_an_account_and_a_bot_are_marked_and_a_look_alike_guest_is_not() -> None:
    assert marked_name({"player": "p1", "name": "ada", "account": True}) == "ada ✓"
    assert marked_name({"player": "p2", "name": "ada"}) == "ada"
    assert marked_name({"player": "bot-1", "name": "Search bot"}) == "Search bot [bot]"
    assert marked_name({"name": "Search bot", "bot": True}) == "Search bot [bot]"  # a race_list seat
    assert marked_name({"player": "p3", "name": "Search bot"}) == "Search bot"  # a guest named so
    # In a column the name gives way, never the mark.
    long = {"player": "p1", "name": "Grandmasterofthepatience", "account": True}
    assert marked_name(long, 16) == "Grandmasteroft ✓"
    assert len(marked_name({"player": "p2", "name": "Grandmasterofthepatience"}, 16)) == 16


def test_the_lobby_the_bars_the_ranking_and_the_standings_show_the_marks() -> None:
    model = RaceModel(me="p2", race_id="r1", game="fours-up", status="lobby", host="p1", seats=3)
    model.players = {
        "p1": PlayerRow("p1", "ada", account=True),
        "p2": PlayerRow("p2", "ada 2"),
        "bot-1": PlayerRow("bot-1", "Greedy bot"),
    }
    lobby = lobby_text(model, None)
    assert "ada ✓  (host)" in lobby and "ada 2  (you)" in lobby and "Greedy bot [bot]" in lobby
    bars = bars_text(model).plain
    assert "ada ✓" in bars and "Greedy bot [bot]" in bars and "ada 2 ✓" not in bars
    row = dict(rank=1, status="won", won=True, home=52, moves=80, time_ms=1000)
    lines = ranking_lines(
        [{**row, "player": "p1", "name": "ada", "account": True}, {**row, "player": "p2", "name": "ada 2"}]
    )
    assert "ada ✓" in lines[0] and "✓" not in lines[1]
    listed = {
        "race": "r1",
        "game": "fours-up",
        "status": "lobby",
        "total": 52,
        "players": [
            {"name": "ada", "home": 0, "status": "ready", "account": True},
            {"name": "Greedy bot", "home": 0, "status": "ready", "bot": True},
        ],
    }
    assert "ada ✓ 0/52, Greedy bot [bot] 0/52" in race_row(listed, 0)
    standing = dict(rank=1, points=4, wins=2, races=2)
    assert "ada ✓" in standing_line({**standing, "player": "p1", "name": "ada", "account": True}, None)
    assert "✓" not in standing_line({**standing, "player": "p2", "name": "ada"}, None)


@pytest.mark.timeout(120)
@pytest.mark.daily
async def test_the_daily_board_marks_the_account_and_not_the_guest(make_server, tmp_path) -> None:
    server = await make_server(**CHEAP_HASH)
    async with connect(server.ws_url, name="Marker") as real:
        await real.claim("Marker", PW)
        rid = (await real.request(m.DailyStart(game=GAME))).race
        await real.wait_for("start", lambda ev: ev.race == rid)
        await real.finish(rid)
        await real.wait_for("end", lambda ev: ev.race == rid)
    app = PlayApp(connector(server.ws_url, "Marker_", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 45)) as pilot:
        screen: DailyScreen = await open_daily(pilot, app)
        await click_shown(pilot, "#daily-board")
        board = screen.query_one("#daily-board-text")
        await until(pilot, lambda: "Marker" in rendered(board), what="the leaderboard")
        assert "Marker ✓" in rendered(board)
