"""`rules` on the race screen tells how the game on screen is played (the terminal said it
nowhere: "rules" was answered "not a move"), whole in the status line at 80 columns for
every game; the help names it, and a player waiting in a lobby is pointed to it."""

from __future__ import annotations

import pytest

from client.tui.race_commands import RACE_HELP, rules_text
from protocol.rules.facts import facts_of
from protocol.rules.games import GAMES

from .helpers import offline_play, race_started, rendered, status_rows, until


async def test_rules_in_a_race_says_how_its_game_is_played() -> None:
    app, _ = offline_play("fours-up", rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        assert " rules " in rendered(app.query_one("#status"))  # the "Go!" help names it
        await pilot.press(*"rules", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "Fours Up:" in rendered(status), what="the rules")
        said = " ".join(rendered(status).split())
        assert said == " ".join(rules_text("fours-up").split()) and "not a move" not in said
        assert not status.has_class("error")


async def test_a_lobby_points_to_rules() -> None:
    app, _ = offline_play("rouge-et-noir", countdown_ms=60_000, rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.query_one("#board")
        await until(
            pilot, lambda: "'rules' tells how Rouge et Noir is played" in rendered(board), what="lobby"
        )


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_each_games_rules_are_whole_at_80_columns(game: str) -> None:

    text = rules_text(game)
    assert facts_of(GAMES[game])["blurb"] in text
    needed = await status_rows(text)
    assert needed <= 3, needed


def test_rules_with_no_game_points_to_the_menu() -> None:
    assert "'menu'" in rules_text(None)
    assert "rules" in RACE_HELP
