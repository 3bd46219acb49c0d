"""The countdown's command line offers what acts then: it offered `menu`, which is refused
until the player's own game is over ("the race is about to start: 'menu' is for once your
game is over")."""

from __future__ import annotations

from textual.widgets import Input

from .helpers import offline_play, until


async def test_the_countdown_offers_no_menu_it_would_refuse() -> None:
    app, _ = offline_play("fours-up", countdown_ms=60_000, rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "countdown", what="the countdown")
        cmd = app.query_one("#cmd", Input)
        await until(pilot, lambda: cmd.placeholder.startswith("moves once the race starts"), what="drawn")
        assert "menu" not in cmd.placeholder and "rules" in cmd.placeholder, cmd.placeholder
        await pilot.press(*"rules", "enter")  # what it offers acts
        await until(pilot, lambda: "Fours Up:" in str(app.query_one("#status").render()), what="the rules")
