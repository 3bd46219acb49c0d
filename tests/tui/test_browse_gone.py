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


async def test_a_tick_once_the_widgets_are_gone_draws_nothing_and_the_app_runs_on(tmp_path) -> None:
    """`tick_every`'s tick is guarded as a worker is (it is built on `unless_gone`): a tick that
    finds its widgets gone draws nothing, the app runs on; any other error still fails it."""
    from client.tui.watch_app import WatchApp

    from .helpers import never_connects

    ticks: list[str] = []
    app = WatchApp(never_connects)

    def tick() -> None:
        ticks.append("tick")
        raise NoMatches("#race-info")

    app.tick = tick  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        app.tick_every(0.01)
        await until(pilot, lambda: len(ticks) >= 3, what="ticks that found no widgets")
        assert app.is_running and app._exception is None
