"""Waiting in the quick-match queue, the race screen's command line and help offer what acts
there (leave or menu to stop waiting, rules, quit): they offered moves, ready, start and
finish ("move (w>f3, t2:3>t5, draw) or command (ready, start, finish, quit)")."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from client.tui.intent import Intent
from client.tui.model import RaceModel
from client.tui.net import connector
from client.tui.play_app import PlayApp
from client.tui.race_commands import QUEUE_HELP, help_text

from .helpers import rendered, until


@pytest.mark.timeout(60)
async def test_the_queue_offers_what_acts_there(make_server, tmp_path) -> None:
    server = await make_server()  # no rival comes, and no bot worker
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("quick", "fours-up", 2))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="queued")
        cmd = app.query_one("#cmd", Input)
        await until(pilot, lambda: "leave" in cmd.placeholder, what="the queue's placeholder")
        for word in ("move", "ready", "start", "finish"):
            assert word not in cmd.placeholder, cmd.placeholder
        await pilot.press(*"help", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "Waiting for rivals" in rendered(status), what="the queue's help")
        assert "ready" not in rendered(status) and "Click a card" not in rendered(status)
        # A lobby's command typed all the same is told the queue, not "no race here: 'menu' to
        # choose one" (the player had chosen one and waits for it).
        for word in ("ready", "start", "finish"):
            app.say("")
            await pilot.press(*word, "enter")
            await until(pilot, lambda: rendered(status).strip(), what=f"{word} answered")
            said = rendered(status)
            assert "waiting for rivals" in said and "'leave'" in said and "no race here" not in said, said
        await pilot.press(*"leave", "enter")
        await until(pilot, lambda: app.model.status != "queued", what="out of the queue")


def test_the_queue_help_is_its_own() -> None:
    assert help_text(RaceModel(status="queued"), hints=False) == QUEUE_HELP
