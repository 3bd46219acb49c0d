"""The play app's `menu` command (offline session, textual's pilot): refused while the
player's race runs, then, once it is over, back to the menu for the next race, whose
events are not mixed with the old one's. Offline the menu has no daily or ratings."""

from __future__ import annotations

from client.tui.menu import MenuScreen
from client.tui.offline import LocalSession
from client.tui.play_app import Intent, PlayApp
from tests.tui.helpers import click_shown, rendered, until

SEED = "0123456789abcdef0123456789abcdef"


async def test_menu_after_the_race_then_another_race() -> None:
    session = LocalSession(name="ada", seed=SEED, countdown_ms=100, rival_interval=0.01, rival_max_moves=30)

    async def connect() -> LocalSession:
        return session

    app = PlayApp(connect, Intent("quick", "racing-aces", 2))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")
        first = app.model.race_id
        await pilot.press(*"menu", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "'menu' is for once it is over" in rendered(status), what="refused")
        assert not isinstance(app.screen, MenuScreen)

        await pilot.press(*"finish", "enter")
        await until(pilot, lambda: app.model.status == "finished", what="race end")
        assert "'menu' for another race" in rendered(status)
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert app.model.race_id is None and app.model.status == "none"
        assert not app.screen.query("#daily") and not app.screen.query("#menu-you")  # offline
        await click_shown(pilot, "#quick")
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="the next race")
        assert app.model.race_id != first and first in app.races_left
        # an event of the race left behind changes nothing
        session.events.put_nowait({"t": "race", "race": first, "ver": 999, "status": "finished"})
        await until(pilot, session.events.empty, what="the event taken")  # and handled at once
        await pilot.pause()
        assert app.model.race_id != first and app.model.status == "running"
