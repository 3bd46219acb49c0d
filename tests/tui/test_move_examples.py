"""The move examples of the help, the command line and a mistyped line name piles the game
has: Rouge et Noir has no waste, and its race screen said "move (w>f3, …)", and "w>f3" typed
as told was answered "rouge-et-noir has no pile 'w'". Offline (the rules engine's bots)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from client.tui.race_commands import for_game

from .helpers import offline_play, race_started, rendered, until


def test_the_examples_name_a_pile_of_the_game() -> None:
    text = "move (w>f3, t2:3>t5, d to draw)"
    assert for_game(text, "fours-up") == text
    assert for_game(text, None) == text
    assert "w>" not in for_game(text, "rouge-et-noir")


@pytest.mark.parametrize("game", ["rouge-et-noir", "fours-up"])
async def test_the_race_screen_offers_moves_of_its_game(game: str) -> None:
    app, _ = offline_play(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        cmd = app.query_one("#cmd", Input)
        status = app.query_one("#status")
        await pilot.press(*"help", "enter")
        await until(pilot, lambda: "Click a card" in rendered(status), what="the help")
        said = [cmd.placeholder, rendered(status)]
        await pilot.press(*"xyz", "enter")
        await until(pilot, lambda: "not a command" in rendered(status), what="a mistyped line answered")
        said.append(rendered(status))
        for text in said:
            assert ("w>f3" in text) == (game == "fours-up"), text
