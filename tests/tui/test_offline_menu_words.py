"""Leaving an offline race that goes on (`menu` after finishing) does not promise a place it
is kept: the offline menu has no "Your races", and offline races are kept nowhere."""

from __future__ import annotations

from client.tui.menu import MenuScreen

from .helpers import offline_play, race_started, until


async def test_leaving_a_running_offline_race_does_not_point_at_your_races() -> None:
    app, _ = offline_play("racing-aces", rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.my_status == "finished", what="our game over")
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        said = [str(n.message) for n in app._notifications]
        assert any("goes on without you: it is not kept offline" in s for s in said), said
        assert not any("Your races" in s for s in said), said
