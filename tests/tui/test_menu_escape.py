"""Esc on the menu of `solrace play` goes back one level, never out: from the daily
challenge, ratings and "Your races" to the menu; on the menu to the race the `menu`
command left (its final board and ranking); on the first menu it leaves a field for
Quick match, and the app goes on."""

from __future__ import annotations

from client.tui.daily_screen import DailyScreen
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp
from client.tui.ratings_screen import RatingsScreen
from client.tui.recent_screen import RecentScreen

from .helpers import click_shown, offline_play, race_started, rendered, until


async def test_esc_on_the_first_menu_leaves_a_field_and_never_quits() -> None:
    session = LocalSession(name="ada")

    async def connect() -> LocalSession:
        return session

    app = PlayApp(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        assert "Esc" not in rendered(menu.query_one("#menu-title"))  # nothing to go back to
        await click_shown(pilot, "#seats")
        await pilot.press("3", "escape")
        await until(pilot, lambda: app.focused is menu.query_one("#quick"), what="out of the field")
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.is_running and app.screen is menu and app.return_code is None


async def test_esc_on_the_menu_goes_back_to_the_race_it_left() -> None:
    app, _ = offline_play("racing-aces", countdown_ms=50, rival_interval=0.01, rival_max_moves=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        race = app.model.race_id
        await pilot.press(*"menu", "enter")
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        assert f"Esc: back to race {race}" in rendered(menu.query_one("#menu-title"))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, MenuScreen), what="the race again")
        assert app.model.race_id == race and app.model.status == "finished"
        await until(pilot, lambda: app.query_one("#result").region.height > 0, what="its ranking")
        assert f"back in race {race}" in rendered(app.query_one("#status"))
        assert app.focused is app.query_one("#cmd")
        # and the menu again, where a choice starts the next race as before
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="menu")
        await click_shown(pilot, "#practice")
        await until(pilot, lambda: app.model.race_id not in (None, race), what="the next race")


async def test_esc_closes_each_screen_the_menu_opens(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")))
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.screen, what="menu")
        for button, kind in (("#daily", DailyScreen), ("#ratings", RatingsScreen), ("#recent", RecentScreen)):
            await click_shown(pilot, button)
            screen = await until(pilot, lambda k=kind: isinstance(app.screen, k) and app.screen, what=button)
            back = await until(pilot, lambda s=screen, b=button: s.query(f"{b}-back"), what="its Back button")
            assert "Esc" in str(back.first().label)  # said on its Back button
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is menu, what=f"the menu again from {button}")
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.screen is menu
