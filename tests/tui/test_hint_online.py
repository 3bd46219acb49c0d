"""The play app's `hint` command online: the app driven by textual's pilot, over the real
client library, against a real server (in this process) with one solver worker process.

In a casual race of one seat the status line shows the server's suggested move (a legal
one) or that no move helps; in a race of two it says, in a sentence, that hints are for
casual solo races. Never the adapter's "the client does not send 'hint'".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from waiting import DEADLINE

from client.tui.errors import ServerError
from client.tui.hints import ask_hint
from client.tui.model import RaceModel
from client.tui.net import connector, open_session
from client.tui.play_app import Intent, PlayApp

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(180)

SOLVER = dict(
    certify_workers=0,
    solver_request_workers=1,
    certified_games="none",
    hint_wait_s=DEADLINE * 2 / 3,
    countdown_ms=100,
)


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


async def hint_shown(pilot: Any, app: PlayApp) -> str:
    """Type `hint` and wait for its answer in the status line."""
    await pilot.press(*"hint", "enter")
    await until(
        pilot,
        lambda: status(app).startswith("hint: ") and "asking" not in status(app),
        timeout=DEADLINE,
        what="the hint's answer",
    )
    return status(app)


async def test_hint_in_a_casual_race_of_one_seat_shows_a_legal_move(make_server, tmp_path) -> None:
    server = await make_server(**SOLVER)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 1))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.race_id is not None, what="race created")
        await pilot.press(*"ready", "enter")
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")
        shown = await hint_shown(pilot, app)
        assert "unknown-type" not in shown and "does not send" not in shown
        move = shown.removeprefix("hint: ").strip()
        if "no move helps" in shown:
            return  # a deal where no move helps from the start: said so, in a sentence
        assert move in app.model.legal, shown
        # The suggested move is played as typed.
        await pilot.press(*move, "enter")
        await until(pilot, lambda: app.model.n == 1, what="the hinted move acknowledged")


async def test_hint_in_a_race_of_two_says_why_there_is_none(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(**SOLVER)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.race_id is not None, what="race created")
        race = app.model.race_id
        assert race is not None
        async with connect(server.ws_url, name="bob") as bob:
            await bob.join(race)
            await bob.ready(race)
            await pilot.press(*"ready", "enter")
            await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")
            shown = await hint_shown(pilot, app)
            assert shown.startswith("hint: hints are for a casual race of one seat"), shown
            assert "hints-forbidden" not in shown, shown


class _Refusing:
    """A session whose `hint` request fails with a given error (as net.NetSession raises it)."""

    player, name = "p1", "ada"

    def __init__(self, error: ServerError) -> None:
        self.error = error

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        raise self.error


def _running() -> RaceModel:
    m = RaceModel()
    m.status, m.my_status, m.view, m.race_id = "running", "playing", "x", "r1"
    return m


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (ServerError("solver-busy", "the solver did not finish", retry_ms=2000), "busy: try again in 2 s"),
        (ServerError("hints-forbidden", "hints are only for casual solo races"), "casual race of one seat"),
        (ServerError("timeout", "no reply from the server"), "did not answer"),
        (ServerError("disconnected", "not connected"), "not connected"),
        (ServerError("internal", "this server has no solver worker"), "this server has no solver worker"),
        (ServerError("unknown-type", ""), "does not give hints"),
    ],
)
async def test_every_refusal_is_a_sentence(error: ServerError, words: str) -> None:
    text = await ask_hint(_Refusing(error), _running())  # type: ignore[arg-type]
    assert text.startswith("hint: ") and error.code not in text, text  # words, not the code
    assert words in text, text


async def test_the_adapter_sends_hint_and_analysis_and_returns_their_dicts(make_server, tmp_path) -> None:
    """net.NetSession: `hint` and `analysis` go through the library's methods; the replies
    come back as the protocol's maps (docs/protocol.md §3)."""

    async def event(session: Any, t: str) -> dict[str, Any]:
        while True:
            ev = await session.events.get()
            if ev.get("t") == t:
                return ev

    server = await make_server(**SOLVER, analysis_nodes=3000, analysis_wait_s=DEADLINE * 2 / 3)
    session = await open_session(server.ws_url, "ada", str(tmp_path / "token"))
    try:
        snap = await session.request("create", game="fours-up", seats=1)
        race = snap["race"]
        await session.request("ready", race=race)
        await asyncio.wait_for(event(session, "start"), DEADLINE)
        hint = await session.request("hint", race=race)
        assert hint["t"] == "hint" and hint["race"] == race and hint["n"] == 0
        assert "move" in hint  # a move, or nil when no move helps
        with pytest.raises(ServerError) as refused:
            await session.request("analysis", race=race)
        assert refused.value.code == "race-not-over"
        await session.request("finish", race=race)
        await asyncio.wait_for(event(session, "end"), DEADLINE)
        analysis = await session.request("analysis", race=race)
        assert analysis["t"] == "analysis" and analysis["race"] == race
        assert [p["player"] for p in analysis["players"]] == [session.player]
        assert analysis["players"][0]["text"]
    finally:
        await session.close()
