"""After the race asked for was refused (`solrace play --join RACE` of a race that already
started or does not exist, a `create` the server refused, a `--rematch` of no race of
yours: the board went on saying "connecting to HOST…" and the command line "connecting…")
there is no race on screen: the
board, the help, the command line's placeholder and any race command offer what the player
can do then ('menu' for another race, ctrl+q), nothing of a lobby's (ready, start…).
Against a real server."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.model import RaceModel
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_commands import NO_RACE_HELP, PLACEHOLDERS, help_text, placeholder
from client.tui.widgets import BoardView

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(60)

LOBBY_WORDS = ("ready", "start", "leave", "finish")


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


def test_with_no_race_the_help_offers_the_menu_or_the_app_the_race_was_for() -> None:
    none = RaceModel()
    assert help_text(none, True) == NO_RACE_HELP
    assert not any(word in NO_RACE_HELP for word in LOBBY_WORDS)
    assert placeholder("none") == PLACEHOLDERS["none"] == "command: menu (choose a race), quit"
    arena = "back to the arena"
    assert placeholder("none", arena) == "ctrl+q goes back to the arena"
    assert help_text(none, True, arena) == "no race here: ctrl+q goes back to the arena"


@pytest.mark.parametrize("how", ["started", "unknown", "create", "rematch"])
async def test_after_a_refused_join_or_create_only_the_menu_and_quit_are_offered(
    make_server, tmp_path, how: str
) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=60_000)
    async with connect(server.ws_url, name="bob") as bob:
        race = (await bob.create("fours-up", 1)).race
        await bob.ready(race)  # a race of one seat: its countdown begins
        intent = {
            "started": Intent("join", race=race),
            "unknown": Intent("join", race="nosuchrace"),
            "create": Intent("create", "no-such-game", 2),
            "rematch": Intent("rematch", race="nosuchrace"),
        }[how]
        app = PlayApp(
            connector(server.ws_url, "ada", str(tmp_path / "token")), intent, server_url=server.ws_url
        )
        async with app.run_test(size=(100, 40)) as pilot:
            shown = app.query_one("#status")
            await until(pilot, lambda: shown.has_class("error") and " — " in status(app), what="the refusal")
            refused = status(app)
            cmd = app.query_one("#cmd", Input)
            offered = "command: menu (choose a race), quit"
            await until(pilot, lambda: cmd.placeholder == offered, what=f"the placeholder {offered!r}")
            # the board says why, and what to do: not "connecting…" nor "choose a game…"
            # (in lines whole in 80 columns: compared word by word)
            on_board = " ".join(rendered(app.query_one("#board", BoardView)).split())
            assert on_board.startswith(" ".join(refused.split(" — ")[0].split())), on_board
            await pilot.press(*"help", "enter")
            await until(pilot, lambda: status(app) == NO_RACE_HELP, what="the help")
            for typed in ("ready", "w>f1"):
                await pilot.press(*typed, "enter")
                await until(pilot, lambda: "no race here" in status(app), what=f"{typed} answered")
                assert status(app) == "no race here: 'menu' to choose one, ctrl+q to quit"
                app.say("")
            await pilot.press(*"menu", "enter")
            await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
