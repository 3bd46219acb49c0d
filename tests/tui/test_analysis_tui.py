"""The play app's `analysis` command: once the race is over, where each player's win was lost,
on a screen of its own; online from the server's solver (asked again while it is busy),
offline from the race's replay, analysed in the app."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from waiting import DEADLINE

from client.tui.analysis import AnalysisScreen, busy_text, fetch_analysis, refusal_text
from client.tui.errors import ServerError
from client.tui.net import connector
from client.tui.offline import LocalSession
from client.tui.play_app import Intent, PlayApp

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(180)

SOLVER = dict(
    certify_workers=0,
    solver_request_workers=1,
    certified_games="none",
    analysis_nodes=3000,
    analysis_wait_s=DEADLINE * 2 / 3,
    countdown_ms=100,
)


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


def shown_analysis(app: Any) -> list[str]:
    """The analysis screen's player lines, or [] while it is not on screen."""
    if not isinstance(app.screen, AnalysisScreen):
        return []
    return [rendered(w) for w in app.screen.query(".analysis-player")]


async def finished_alone(pilot: Any, app: PlayApp) -> None:
    """Ready, a move where there is one, then `finish` asked and confirmed: the race is over."""
    await until(pilot, lambda: app.model.race_id is not None, what="race created")
    await pilot.press(*"ready", "enter")
    await until(pilot, lambda: app.model.status == "running" and app.model.view, what="race start")
    await pilot.press(*"analysis", "enter")
    await until(pilot, lambda: "once the race is over" in status(app), what="not before the end")
    await pilot.press(*"finish", "enter", *"finish", "enter")
    await until(pilot, lambda: app.model.status == "finished", what="the race's end")


async def test_online_the_analysis_of_a_finished_race(make_server, tmp_path) -> None:
    server = await make_server(**SOLVER)
    app = PlayApp(
        connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "racing-aces", 1)
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await finished_alone(pilot, app)
        assert "analysis" in app.help_text()
        await pilot.press(*"analysis", "enter")
        await until(pilot, lambda: shown_analysis(app), timeout=DEADLINE * 2, what="the analysis screen")
        [line] = shown_analysis(app)
        assert line.startswith("ada: ") and len(line) > len("ada: "), line
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, AnalysisScreen), what="the screen closed")
        assert "'analysis' shows it again" in status(app)


async def test_offline_the_race_is_analysed_in_the_app() -> None:
    async def connect() -> LocalSession:
        return LocalSession(name="ada", countdown_ms=50, rival_interval=5)

    app = PlayApp(connect, Intent("practice", "racing-aces", 1))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.model.status == "running", what="the offline race")
        for _ in range(2):
            await pilot.press(*"finish", "enter")
            await pilot.pause()
        await until(pilot, lambda: app.model.status == "finished", what="the race's end")
        await pilot.press(*"analysis", "enter")
        await until(pilot, lambda: shown_analysis(app), timeout=DEADLINE * 2, what="the analysis screen")
        assert [line.split(":")[0] for line in shown_analysis(app)] == ["ada"]


async def test_your_races_shows_a_races_analysis(make_server, tmp_path) -> None:
    """ "Your races": `a` (or the Analysis button) on a race shows its analysis over the list."""
    from client import library as client
    from client.tui.menu import MenuScreen
    from client.tui.recent_screen import RecentScreen

    from .helpers import click_shown
    from .test_replay_cli import finished_race

    server = await make_server(**SOLVER)
    url = server.ws_url
    async with client.connect(url, name="ada") as a, client.connect(url, name="bob") as b:
        race, _, _, _ = await finished_race(a, b, moves=(6, 3))
        token_file = tmp_path / "token"
        token_file.write_text(f"{a.token}\n")
    app = PlayApp(connector(url, None, str(token_file)), server_url=url, default_game="fours-up")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await click_shown(pilot, "#recent")
        screen = await until(
            pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen, what="Your races"
        )
        await until(pilot, lambda: [r.get("race") for r in screen.races] == [race], what="the race listed")
        await pilot.press("a")
        await until(pilot, lambda: shown_analysis(app), timeout=DEADLINE * 2, what="the analysis screen")
        assert [line.split(":")[0] for line in shown_analysis(app)] == ["ada", "bob"]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="back to Your races")


class _Busy:
    """A session whose `analysis` is `solver-busy` `busy` times, then answered."""

    player, name = "p1", "ada"

    def __init__(self, busy: int, retry_ms: int = 1) -> None:
        self.busy = busy
        self.retry_ms = retry_ms
        self.asked = 0

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        assert t == "analysis"
        self.asked += 1
        if self.asked <= self.busy:
            raise ServerError("solver-busy", "the solver is busy", retry_ms=self.retry_ms)
        return {"t": "analysis", "race": fields["race"], "players": [{"name": "ada", "text": "won"}]}


async def test_a_busy_solver_is_asked_again_and_said_once() -> None:
    heard: list[str] = []
    session = _Busy(busy=3)
    players = await asyncio.wait_for(fetch_analysis(session, "r1", asking=heard.append), DEADLINE)  # type: ignore[arg-type]
    assert players == [{"name": "ada", "text": "won"}] and session.asked == 4
    assert heard == ["analysis: the server's solver is at work (seconds per player)…"]


async def test_a_long_wait_says_how_long_at_each_busy_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    # A race of 8 keeps the solver a minute or more: the line must not look stuck meanwhile.
    from client.tui import analysis

    class Clock:
        now = 1000.0

        def monotonic(self) -> float:
            self.now += 21.5  # each ask waits out the server's ANALYSIS_WAIT_S
            return self.now

    monkeypatch.setattr(analysis, "time", Clock())
    heard: list[str] = []
    players = await asyncio.wait_for(fetch_analysis(_Busy(busy=3), "r1", asking=heard.append), DEADLINE)  # type: ignore[arg-type]
    assert players == [{"name": "ada", "text": "won"}]
    assert [h.split(", ")[1] if ", " in h else h for h in heard] == [
        "21 s so far (seconds per player)…",
        "43 s so far (seconds per player)…",
        "64 s so far (seconds per player)…",
    ]
    assert busy_text(1.0) == "analysis: the server's solver is at work (seconds per player)…"


async def test_a_solver_busy_past_the_patience_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from client.tui import analysis

    monkeypatch.setattr(analysis, "ANALYSIS_PATIENCE_S", 0.0)
    with pytest.raises(ServerError) as refused:
        await fetch_analysis(_Busy(busy=1, retry_ms=2000), "r1")  # type: ignore[arg-type]
    assert refusal_text(refused.value) == "analysis: the server's solver is busy: try again in 2 s"


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (ServerError("daily-open", "the daily's day is not over"), "analysis: "),
        (ServerError("unknown-type", ""), "this server does not analyse races"),
        (ServerError("internal", "this server has no solver worker"), "this server has no solver worker"),
    ],
)
def test_every_refusal_is_a_sentence(error: ServerError, words: str) -> None:
    text = refusal_text(error)
    assert text.startswith("analysis: ") and words in text and error.code not in text, text


async def test_a_watcher_sees_the_analysis_once_the_race_ends(make_server, tmp_path) -> None:
    """`solrace watch`: `a` shows the analysis, its key only once the race is over."""
    from client.library.connection import connect
    from client.tui.watch_app import WatchApp

    from .helpers import footer_keys, two_player_race

    server = await make_server(**SOLVER, spectator_delay_ms=600_000)
    async with connect(server.ws_url, name="alice") as a, connect(server.ws_url, name="bob") as b:
        race = await two_player_race(a, b, "racing-aces")
        app = WatchApp(connector(server.ws_url, "watcher", str(tmp_path / "token")), race=race)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: footer_keys(app).get("back to the list"), what="the race's keys")
            assert "analysis" not in footer_keys(app)
            await a.move(race, "draw")
            await a.finish(race)
            await b.finish(race)
            await until(pilot, lambda: "analysis" in footer_keys(app), what="the analysis's key")
            await pilot.press("a")
            await until(pilot, lambda: shown_analysis(app), timeout=DEADLINE * 2, what="the analysis screen")
            assert [line.split(":")[0] for line in shown_analysis(app)] == ["alice", "bob"]
