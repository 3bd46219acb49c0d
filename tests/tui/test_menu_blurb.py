"""The menu says how the game chosen is played (the browser's game page opens with the same
words): the four names alone told a new player nothing of the games. An 80x24 terminal has
no rows for it: its "How to play" button opens it (and the race screen's `rules` says it)."""

from __future__ import annotations

from textual.widgets import RadioButton

from client.tui.menu import MenuScreen
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from protocol.rules.facts import facts_of
from protocol.rules.games import GAMES

from .helpers import rendered, until


def menu_app() -> PlayApp:
    session = LocalSession(name="ada")

    async def connect() -> LocalSession:
        return session

    return PlayApp(connect)


async def test_the_menu_says_how_the_game_chosen_is_played() -> None:
    app = menu_app()
    async with app.run_test(size=(110, 45)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        said = menu.query_one("#menu-blurb")
        await until(pilot, lambda: said.region.area > 0, what="laid out")
        assert " ".join(rendered(said).split()) == facts_of(GAMES["racing-aces"])["blurb"]
        fours = next(b for b in menu.query(RadioButton) if b.name == "fours-up")
        await pilot.click(fours)
        blurb = facts_of(GAMES["fours-up"])["blurb"]
        await until(pilot, lambda: " ".join(rendered(said).split()) == blurb, what="the other game's")


async def test_a_short_terminal_keeps_its_rows_for_the_controls() -> None:
    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        await until(pilot, lambda: menu.has_class("short"), what="short")
        await pilot.pause()
        assert not menu.query_one("#menu-blurb").display or menu.query_one("#menu-blurb").region.area == 0


async def test_a_short_terminal_opens_the_rules_of_the_game_chosen() -> None:
    """At 80x24 the blurb has no rows: "How to play" opens the chosen game's rules (and how to
    move) over the menu, every line of them on the screen; Esc goes back to the menu."""
    from client.tui.rules_screen import RulesScreen

    from .helpers import click_shown
    from .test_daily_recent_fit import screen_lines

    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        await until(pilot, lambda: menu.has_class("short"), what="short")
        fours = next(b for b in menu.query(RadioButton) if b.name == "fours-up")
        await pilot.click(fours)
        await until(pilot, lambda: fours.value, what="fours-up chosen")
        await click_shown(pilot, "#how")
        rules = await until(pilot, lambda: isinstance(app.screen, RulesScreen) and app.screen, what="rules")
        await until(pilot, lambda: rules.query_one("#rules-back").region.area > 0, what="laid out")
        shown = " ".join(" ".join(line.strip(" │╭╮╰╯─") for line in screen_lines(app)).split())
        assert "How to play Fours Up" in shown
        assert facts_of(GAMES["fours-up"])["blurb"] in shown, shown
        assert "t2:3>t5" in shown, shown  # and how moves are made
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is menu, what="back to the menu")
