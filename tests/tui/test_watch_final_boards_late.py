"""`solrace watch`: the `end` of a race reaches the watcher as it is committed, and a loaded
server may answer `race-not-over` to the final boards' `replay` for seconds more. The app asked
three times over about a second, then gave up with no final boards; it now asks again with a
growing pause for FINAL_WAIT_S, saying so over the boards, and on giving up says what to do (f).

The server's late close is injected: its replay guard refuses `race-not-over` for its first
calls (tests/injected.py), everything else real."""

from __future__ import annotations

import pytest
from injected import fail_first
from must import must

from client.tui.replay_text import final_boards_late_text
from client.tui.widgets import BoardView
from protocol.messages import ErrorCode
from server.core.races import RaceError

from .helpers import footer_keys, rendered, until, watching_a_race

#: the f key's description in the footer (the message line says "press f to ask again")
AGAIN = "ask again"


def not_over(why: str) -> RaceError:
    return RaceError(ErrorCode.RACE_NOT_OVER, why)


@pytest.mark.timeout(120)
async def test_the_final_boards_come_after_more_than_a_second_of_race_not_over(make_server, tmp_path):
    async with watching_a_race(make_server, tmp_path, "racing-aces") as (server, a, b, race, app, pilot):
        # more refusals than the three tries of about a second the app made before
        asked = fail_first(
            server.service, "replay_guard", 4, why="the end is being committed", error=not_over
        )
        await a.finish(race)
        await b.finish(race)
        info = app.query_one("#race-info")
        await until(pilot, lambda: "still closing the race" in rendered(info), what="the wait said")
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="the final boards")
        assert app.final_shown and asked["n"] == 5
        assert "final boards (the race is over" in rendered(info)
        assert not rendered(app.query_one("#status")).strip()
        assert AGAIN not in footer_keys(app)


@pytest.mark.timeout(120)
async def test_giving_up_on_the_final_boards_says_so_and_f_asks_again(make_server, tmp_path):
    async with watching_a_race(make_server, tmp_path, "fours-up", final_wait_s=0.5) as (
        server,
        a,
        b,
        race,
        app,
        pilot,
    ):
        guard = server.service.replay_guard
        fail_first(server.service, "replay_guard", 1_000, why="the end is being committed", error=not_over)
        await a.finish(race)
        await b.finish(race)
        info, status = app.query_one("#race-info"), app.query_one("#status")
        await until(pilot, lambda: "no final boards" in rendered(info), what="giving up")
        assert "no final boards (the server has not closed the race yet)" in rendered(info)
        said = " ".join(rendered(status).split())
        assert said == final_boards_late_text(race, 0.5), said
        assert "press f to ask again" in said and "race-not-over" not in said
        await until(pilot, lambda: AGAIN in footer_keys(app), what="the f key in the footer")
        # the server closes the race at last: f asks again, and the final boards come
        server.service.replay_guard = guard
        await pilot.press("f")
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="the final boards")
        assert app.final_shown and must(app.model).status == "finished"
        assert not rendered(status).strip()
        await until(pilot, lambda: AGAIN not in footer_keys(app), what="the f key hidden")


@pytest.mark.timeout(120)
async def test_f_asks_again_after_a_server_fault(make_server, tmp_path):
    """A fault of the server (`internal`) is said as the refusal it is, and f asks again."""
    async with watching_a_race(make_server, tmp_path, "fours-up") as (server, a, b, race, app, pilot):
        fail_first(server.service, "replay_guard", why="redis blip while the replay was read")
        await a.finish(race)
        await b.finish(race)
        info, status = app.query_one("#race-info"), app.query_one("#status")
        await until(pilot, lambda: "no final boards" in rendered(info), what="the fault said")
        said = " ".join(rendered(status).split())
        assert "internal" not in said and race in said and said.endswith("Press f to ask again."), said
        await until(pilot, lambda: AGAIN in footer_keys(app), what="the f key in the footer")
        await pilot.press("f")
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="the final boards")
        assert app.final_shown and not rendered(status).strip()
