"""The race screen's help and command line offer only commands that act in the state shown:

* a finished daily attempt offered `analysis` and its replay ("'menu', then Your races"),
  both refused until the day closes (the race is sealed: docs/protocol.md §5);
* the player's own game over while the others play on offered `analysis` (refused "once the
  race is over") and still listed `finish` and `legal`;
* a lobby offered `menu`, refused while you hold a seat there ("'leave' it first"); the
  countdown offered the lobby's commands, all refused by then (`race-started`);
* `refresh` said nothing when it worked: the previous command's answer stayed.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from client.tui.intent import Intent
from client.tui.model import PlayerRow, RaceModel
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.race_commands import (
    COUNTDOWN_HELP,
    DAILY_OVER_HELP,
    LOBBY_HELP,
    MINE_OVER_HELP,
    OVER_HELP,
    OVER_REPLAY,
    help_text,
    menu_refusal,
    placeholder,
)

from .helpers import offline_play, race_started, rendered, status_rows, until

SEED = "0123456789abcdef0123456789abcdef"


def model(status: str, my_status: str | None = "playing", **fields: object) -> RaceModel:
    m = RaceModel(me="p1", race_id="r1", game="fours-up", status=status, total=52, seats=2)
    m.players["p1"] = PlayerRow("p1", "ada", home=3)
    m.players["p2"] = PlayerRow("p2", "bob", home=3)
    m.my_status = my_status
    if status == "finished":
        m.ranking = [{"rank": 1, "player": "p1"}, {"rank": 2, "player": "p2"}]
    for k, v in fields.items():
        setattr(m, k, v)
    return m


def commands(help: str) -> list[str]:
    """The commands a help lists after its "Commands:"."""
    return help.rsplit("Commands: ", 1)[1].split()


def test_a_finished_daily_attempt_offers_no_analysis_nor_replay_yet() -> None:
    for daily in (model("finished", "finished", daily=True, seats=1), model("finished", "finished", seats=1)):
        daily_race = None if daily.daily else "r1"  # the snapshot's `daily`, or the race started as one
        said = help_text(daily, False, online=True, daily_race=daily_race)
        assert "analysis" not in commands(said) and "rematch" not in commands(said), said
        assert "'menu', then Your races" not in said and "sealed until the day closes" in said, said
        shown = placeholder("finished", daily=True)
        assert "analysis" not in shown and "menu" in shown and "ctrl+r: ranking" in shown, shown
    # Any other finished race still offers them.
    over = model("finished", "finished")
    assert help_text(over, False, rematch="rematch", online=True) == OVER_HELP.replace(
        "  Commands: ", OVER_REPLAY + "  Commands: rematch "
    )
    assert "analysis" in placeholder("finished")


def test_my_game_over_while_the_others_play_offers_what_is_left() -> None:
    mine_over = model("running", "finished")
    said = help_text(mine_over, True, online=True)
    assert commands(said) == ["refresh", "rules", "menu", "quit"], said
    assert "race goes on for the others" in said and "'menu' for another race" in said
    shown = placeholder("running", mine_over=True)
    assert "analysis" not in shown and "finish" not in shown and "menu" in shown, shown
    # In a race played for the arena: no menu; ctrl+q goes back there.
    arena = help_text(mine_over, True, "back to the arena", online=True)
    assert "menu" not in arena and "ctrl+q goes back to the arena" in arena, arena


def test_the_lobby_offers_no_menu_while_a_seat_is_held() -> None:
    lobby = model("lobby", None)
    assert menu_refusal(lobby, None)  # refused there: not offered
    assert "menu" not in commands(help_text(lobby, False))
    assert "menu" not in placeholder("lobby") and "leave" in placeholder("lobby")
    countdown = model("countdown", None)
    assert commands(help_text(countdown, False)) == ["rules", "quit"]


async def test_my_game_over_in_the_app() -> None:
    app, _session = offline_play(rival_interval=60)  # the rivals play on, slowly
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: app.model.my_status == "finished", what="my game over")
        assert app.model.status == "running"
        cmd = app.query_one("#cmd", Input)
        await until(pilot, lambda: "the others play on" in cmd.placeholder, what="the placeholder")
        assert "analysis" not in cmd.placeholder
        await pilot.press(*"help", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "Your game is over" in rendered(status), what="the help")
        assert "finish" not in rendered(status) and "legal" not in rendered(status)


async def test_a_finished_daily_attempt_in_the_app() -> None:
    session = LocalSession(name="ada", seed=SEED, countdown_ms=100)

    async def opened() -> LocalSession:
        return session

    # A race of one seat, as a daily attempt is: the player's finish ends it.
    app = PlayApp(opened, Intent("practice", "fours-up", 1, private=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        app.daily_race = app.model.race_id  # as a daily started or resumed from the menu
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        cmd = app.query_one("#cmd", Input)
        await until(pilot, lambda: "ctrl+r" in cmd.placeholder, what="the finished race's placeholder")
        assert "analysis" not in cmd.placeholder
        await pilot.press(*"help", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "daily attempt is over" in rendered(status), what="the help")


async def test_refresh_says_it_is_done() -> None:
    app, _session = offline_play()
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        status = app.query_one("#status")
        app.say("an earlier answer")
        await pilot.press(*"refresh", "enter")
        await until(pilot, lambda: rendered(status).startswith("refreshed"), what="refresh answered")


def test_the_app_passes_the_daily_race_to_the_help() -> None:
    app = PlayApp(lambda: None)  # type: ignore[arg-type, return-value]  # never connected: not run
    app.model = model("finished", "finished", seats=1)
    app.daily_race = "r1"
    assert "sealed until the day closes" in app.help_text()


@pytest.mark.parametrize(
    "text",
    [
        DAILY_OVER_HELP,
        MINE_OVER_HELP.format(way="'menu' for another race"),
        MINE_OVER_HELP.format(way="ctrl+q goes back to the arena"),
        COUNTDOWN_HELP,
        LOBBY_HELP,
    ],
)
async def test_the_new_helps_are_whole_at_80_columns(text: str) -> None:
    assert await status_rows(text) <= 3
