"""End to end: `solrace serve` (private Redis), scripted rivals through the client
library, and the play / watch apps driven by textual's pilot."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from must import must
from textual.widgets import DataTable
from waiting import DEADLINE

from client.tui.net import connector
from client.tui.play_app import Intent, PlayApp
from client.tui.watch_app import WatchApp
from client.tui.widgets import BoardView

from .helpers import rendered, two_player_race, until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    data = tmp_path_factory.mktemp("serve-data")
    cmd = [
        sys.executable,
        "-m",
        "client.cli",
        "serve",
        "--port",
        "0",
        "--data",
        str(data),
        "--countdown-ms",
        "300",
        "--spectator-delay-ms",
        "300",
        "--spectator-flush-ms",
        "100",
        "--log-level",
        "WARNING",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    url = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = must(proc.stdout).readline()
        if not line:
            break
        if "listening on" in line:
            url = line.split("listening on", 1)[1].split()[0]
            break
    if url is None:
        proc.kill()
        err = must(proc.stderr).read()
        pytest.fail(f"solrace serve did not start: {err[-2000:]}")
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()


async def test_quick_match_moves_rival_bar_finish_ranking(server_url, tmp_path):
    from client.library.connection import connect

    app = PlayApp(connector(server_url, "ada", str(tmp_path / "token")), Intent("quick", "fours-up", 2))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", timeout=DEADLINE, what="queued")
        async with connect(server_url, name="rival") as rival:
            await rival.quick("fours-up", 2)
            await until(
                pilot,
                lambda: app.model.status == "running" and app.model.legal,
                timeout=DEADLINE,
                what="race start",
            )
            race = must(app.model.race_id)
            info = rendered(app.query_one("#info"))
            assert "Fours Up" in info and "left" in info
            assert "f7" in rendered(app.query_one("#board", BoardView))
            # the player moves by typing notation
            await pilot.press(*"draw", "enter")
            await until(pilot, lambda: app.model.n == 1, what="ack")
            assert must(app.model.board).stock == 89
            # an illegal move is refused with the server's reason in the status line
            await pilot.press(*"t0>t0", "enter")
            await until(pilot, lambda: "t0>t0" in rendered(app.query_one("#status")), what="error shown")
            # the rival plays: its bar moves
            await rival.wait_for("start", timeout=DEADLINE)
            for _ in range(3):
                await rival.move(race, "draw")
            await until(
                pilot,
                lambda: app.model.players[rival.player].n == 3,
                timeout=DEADLINE,
                what="rival bar",
            )
            assert "rival" in rendered(app.query_one("#bars"))
            # both finish: the ranking shows with the revealed seed, checked against its fingerprint
            await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
            await rival.finish(race)
            await until(
                pilot,
                lambda: app.model.status == "finished" and app.model.ranking,
                timeout=DEADLINE,
                what="end",
            )
            result = rendered(app.query_one("#result"))
            assert "Final ranking" in result and "ada" in result and "rival" in result
            assert app.model.seed and app.model.seed in result
            assert "matches the deal's fingerprint" in result


async def test_watch_lists_and_spectates_a_race(server_url, tmp_path):
    from client.library.connection import connect

    async with connect(server_url, name="alice") as a, connect(server_url, name="bob") as b:
        race = await two_player_race(a, b, "racing-aces")
        app = WatchApp(connector(server_url, "watcher", str(tmp_path / "wtoken")), refresh_s=0.3)
        async with app.run_test(size=(110, 50)) as pilot:
            await until(
                pilot, lambda: any(r["race"] == race for r in app.races), timeout=DEADLINE, what="listed"
            )
            table = app.query_one("#races", DataTable)
            table.move_cursor(row=[r["race"] for r in app.races].index(race))
            await pilot.press("enter")
            await until(pilot, lambda: app.model is not None and app.model.race_id == race, what="spectating")
            for _ in range(4):
                await a.move(race, "draw")
            await b.move(race, "draw")
            await until(
                pilot,
                lambda: must(app.model).players[a.player].n == 4,
                timeout=DEADLINE,
                what="progress",
            )
            bars = rendered(app.query_one("#race-bars"))
            assert "alice" in bars and "bob" in bars
            # boards arrive with the spectator delay
            await until(
                pilot,
                lambda: len(must(app.model).boards) == 2 and must(app.model).boards[a.player][0] == 4,
                timeout=DEADLINE,
                what="delayed boards",
            )
            await until(pilot, lambda: len(app.query(BoardView)) == 2, what="board widgets")
            titles = " ".join(rendered(w) for w in app.query(".board-title"))
            assert "alice" in titles and "bob" in titles
            assert all("f15" in rendered(bv) for bv in app.query(BoardView))
            await pilot.press("escape")
            await until(pilot, lambda: app.model is None, what="back to list")
        await asyncio.sleep(0)
