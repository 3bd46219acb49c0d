"""The daily challenge in `solrace play` against a real server (in this process) and a real
Redis (docs/protocol.md §5): the menu's Daily challenge shows today's daily per game,
Play starts the attempt and the race screen plays it, and once it is over the day's
leaderboard shows your place; a second attempt is refused, said plainly."""

from __future__ import annotations

import argparse

import pytest
from textual.widgets import Button, DataTable

from client.cli import play
from client.tui.daily_screen import DailyScreen
from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import click_shown, rendered, until

pytestmark = [pytest.mark.timeout(120), pytest.mark.daily]

GAME = "fours-up"


def cell(screen: DailyScreen, game: str, column: int) -> str:
    table = screen.query_one("#daily-games", DataTable)
    return str(table.get_row(game)[column])


async def open_daily(pilot, app: PlayApp) -> DailyScreen:
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
    await click_shown(pilot, "#daily")
    screen = await until(pilot, lambda: isinstance(app.screen, DailyScreen) and app.screen, what="daily")
    await until(pilot, lambda: GAME in screen.infos, what="today's dailies loaded")
    screen.query_one("#daily-games").move_cursor(row=list(screen.infos).index(GAME))
    return screen


async def test_play_todays_daily_then_see_its_leaderboard(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 45)) as pilot:
        screen = await open_daily(pilot, app)
        assert cell(screen, GAME, 0) == "Fours Up"
        assert cell(screen, GAME, 1).startswith("0 played")
        closes = rendered(screen.query_one("#daily-closes"))
        assert "today's dailies close in " in closes and closes.endswith(" per attempt")
        assert cell(screen, GAME, 2) == "not played yet"
        play = screen.query_one("#daily-play", Button)
        assert str(play.label) == "Play today's deal (one ranked attempt)"

        await click_shown(pilot, "#daily-play")
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="attempt runs")
        assert app.model.game == GAME and app.model.private and app.model.seats == 1
        await pilot.press(*"draw", "enter")
        await until(pilot, lambda: app.model.n == 1, what="a move acked")
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        result = rendered(app.query_one("#result"))
        assert "the seed stays secret until the day closes" in result and "None" not in result

        # Back to the menu, and the day's board: the attempt is on it, in first place.
        await pilot.press(*"menu", "enter")
        screen = await open_daily(pilot, app)
        await until(pilot, lambda: "#1 of 1" in cell(screen, GAME, 2), what="your result in the row")
        assert cell(screen, GAME, 3) == "1 day"  # the streak, from `history`
        # Play no longer offers to play: the server's `daily` says the attempt is done.
        play = screen.query_one("#daily-play", Button)
        done = "Today's attempt done: its leaderboard"
        await until(pilot, lambda: str(play.label) == done, what=f"Play saying {done!r}")
        await click_shown(pilot, "#daily-board")
        board = screen.query_one("#daily-board-text")
        await until(pilot, lambda: "your place" in rendered(board), what="the leaderboard")
        text = rendered(board)
        assert text.startswith("Fours Up · daily of ") and "1 attempt" in text
        assert "* " in text and "ada" in text and "your place: #1 of 1" in text

        # One ranked attempt a day: Play says so instead of starting anything.
        await click_shown(pilot, "#daily-play")
        error = screen.query_one("#daily-error")
        await until(pilot, lambda: "attempt is over" in rendered(error), what="refusal said")
        assert isinstance(app.screen, DailyScreen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="back to the menu")


def test_the_daily_flag() -> None:
    def parse(*argv: str) -> argparse.Namespace:
        parser = argparse.ArgumentParser()
        play.add_arguments(parser)
        return parser.parse_args(list(argv))

    assert play.intent_from_args(parse("--daily", "--game", GAME)) == Intent("daily", GAME)
    with pytest.raises(SystemExit, match="--daily needs --game"):
        play.intent_from_args(parse("--daily"))
    with pytest.raises(SystemExit):
        parse("--daily", "--quick", "--game", GAME)
    with pytest.raises(SystemExit, match="--offline"):
        play.build_app(parse("--daily", "--game", GAME, "--offline"))


@pytest.mark.timeout(120)
async def test_a_relaunch_into_a_daily_attempt_knows_it_is_one(make_server, tmp_path) -> None:
    """A relaunch resumes the attempt as a race the token sits in: its snapshot says it is a
    daily attempt, so the screen treats it as one (no hints, `finish` ends the one attempt)."""
    server = await make_server()
    token = str(tmp_path / "token")
    app = PlayApp(connector(server.ws_url, "ada", token), intent=Intent("daily", GAME))
    async with app.run_test(size=(120, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="attempt runs")
        race = app.model.race_id
    again = PlayApp(connector(server.ws_url, "ada", token))
    async with again.run_test(size=(120, 45)) as pilot:
        await until(pilot, lambda: again.model.race_id == race and again.model.legal, what="resumed")
        assert again.daily_race == race
        await pilot.press(*"finish", "enter")
        status = again.query_one("#status")
        await until(
            pilot, lambda: "ranked attempt of the day" in rendered(status), what="the finish question"
        )


async def test_the_close_counts_down_and_the_next_day_is_loaded_at_it(make_server, tmp_path) -> None:
    """The screen may stay open across midnight UTC: its "close in" counts down each second,
    and at the close it asks for the new day's dailies (it said a close long past)."""
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 45)) as pilot:
        screen = await open_daily(pilot, app)
        label = screen.query_one("#daily-closes")
        first = rendered(label)
        await until(pilot, lambda: rendered(label) != first, what="the close's countdown ticking")
        asked: list[str] = []
        session, real_request = screen.session, screen.session.request

        async def request(t: str, **fields):  # type: ignore[no-untyped-def]
            asked.append(t)
            return await real_request(t, **fields)

        closes = screen.infos[GAME]["closes"]  # type: ignore[index]
        session.request = request  # type: ignore[method-assign]
        session.server_now = lambda: closes + 1_000  # type: ignore[method-assign]
        await until(pilot, lambda: asked.count("daily") >= len(screen.infos), what="the new day asked for")
        # Once at that close, not on every tick after it.
        loads: list[int] = []
        screen.load = lambda: loads.append(1)  # type: ignore[method-assign,misc,assignment]
        screen.tick()
        screen.tick()
        assert loads == [] and screen.reloaded_at_close == closes


async def test_a_tick_after_the_screen_is_gone_draws_nothing(make_server, tmp_path) -> None:
    """The countdown's tick (each second) and the loader (after each answer) draw into the
    screen's widgets; as the app shuts down they may run once more with the widgets gone, and
    the tick's NoMatches ended a fresh-clone run of the test above. Here the tick is run by hand
    on a screen the player has left (its widgets gone, its timer stopped)."""
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 45)) as pilot:
        screen = await open_daily(pilot, app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen) and not screen.is_attached, what="left")
        screen.tick()  # nothing to draw into, and nothing raised
        assert app.is_running


async def test_a_load_and_a_tick_with_the_widgets_going_draw_nothing(make_server, tmp_path) -> None:
    """As the app shuts down, the daily screen is still attached while its widgets are removed: a
    load answered then failed on them (NoMatches in a worker ends the app; a loaded tests/tui
    run, the test of the close above). Here a widget is gone from the screen still shown."""
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 45)) as pilot:
        screen = await open_daily(pilot, app)
        await screen.query_one("#daily-closes").remove()
        assert screen.is_attached
        screen.tick()  # nothing to draw into, and nothing raised
        worker = screen.load()
        await worker.wait()
        board = screen.show_board(GAME)
        await board.wait()
        assert app.is_running
