"""A browsing app's worker that draws after it waited, when the app shut down meanwhile: its
widgets are gone, and it draws nothing (client/tui/browse.py `unless_gone`). The watch app's
final boards, answered as a test run on a loaded machine ended, drew into `#race-info` after
the screen had lost its widgets: NoMatches failed the worker, and a failed worker fails the
whole app."""

from __future__ import annotations

import pytest
from textual.css.query import NoMatches
from textual.worker import WorkerState

from client.tui.browse import unless_gone

from .helpers import until, watching_a_race


async def test_unless_gone_ends_a_worker_quietly_on_no_matches_only() -> None:
    async def gone() -> int:
        raise NoMatches("#race-info")

    async def broken() -> int:
        raise ValueError("a bug")

    async def drawn() -> int:
        return 7

    assert await unless_gone(gone)() is None
    assert await unless_gone(drawn)() == 7
    with pytest.raises(ValueError):
        await unless_gone(broken)()


async def test_final_boards_that_come_once_the_widgets_are_gone_draw_nothing(make_server, tmp_path):
    async with watching_a_race(make_server, tmp_path, "fours-up") as (_server, a, b, race, app, pilot):
        await a.finish(race)
        await b.finish(race)
        await until(pilot, lambda: app.final.shown, what="the final boards")
        # as the app shuts down: the screen's widgets go, then the final boards' reply comes
        await app.query_one("#race-info").remove()
        worker = app.load_final_boards(race)
        await worker.wait()  # WorkerFailed (NoMatches) without unless_gone
        assert worker.state == WorkerState.SUCCESS
