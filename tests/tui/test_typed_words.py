"""A word typed on the race screen's command line that is no command is told so, with
`help` named (it went to the server as a move and came back "not a move: expected draw,
SRC>DST or SRC:K>DST"); a move typed once the race is over says it is over (it said "the
race is finished: moves wait for the start")."""

from __future__ import annotations

from .helpers import offline_play, race_started, rendered, until


async def test_a_mistyped_command_names_help_and_sends_no_move() -> None:
    app, session = offline_play("racing-aces", rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        sent = len(session.sent)
        await pilot.press(*"undo", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "'undo' is not a command" in rendered(status), what="told")
        assert "'help'" in rendered(status) and status.has_class("error")
        assert len(session.sent) == sent  # nothing asked of the session
        await pilot.press(*"z9>f0", "enter")  # move-shaped: the rules engine judges it
        await until(pilot, lambda: "z9>f0:" in rendered(status), what="the engine's answer")


async def test_a_move_after_the_end_says_the_race_is_over() -> None:
    app, _ = offline_play("racing-aces", rival_interval=0.01, rival_max_moves=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished", what="the end")
        await pilot.press(*"t0>f0", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "the race is over" in rendered(status), what="told")
        assert "wait for the start" not in rendered(status)
