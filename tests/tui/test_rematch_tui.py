"""Rematches in the race screen (docs/protocol.md §3 `rematch`), against a real server in this
process, with bob played through the client library: once the race is over the status line
names `rematch`, which takes ada to the new race's lobby, ready, and bob gets the offer;
bob's offer shows on ada's status line and `accept` seats her in it, ready. Offline, no
rematch is named, and `rematch` says it needs a server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from waiting import DEADLINE

from client.tui.errors import ServerError
from client.tui.net import connector
from client.tui.offline import LocalSession
from client.tui.play_app import Intent, PlayApp
from protocol import messages as m

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(120)


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


def ready_in_rematch(app: PlayApp, old: str) -> bool:
    """The screen is on a race other than ``old`` and ada is ready there (the `ready` after
    the seat's reply is a second request: until its reply the seat shows not ready)."""
    m = app.model
    row = m.players.get(m.me or "")
    return m.race_id not in (None, old) and row is not None and row.ready


async def race_over(pilot: Any, app: PlayApp, bob: Any) -> str:
    """Ada's app and bob race in her race of two seats (private: with its invite), and both
    finish: ada first, so that the race's end, not her `finish`'s reply, has the last word."""
    await until(pilot, lambda: app.model.race_id is not None, what="race created")
    race = app.model.race_id
    assert race is not None
    await bob.join(race, invite=app.model.invite)
    await bob.ready(race)
    await pilot.press(*"ready", "enter")
    await until(pilot, lambda: app.model.status == "running", what="race start")
    for _ in range(2):  # `finish` asks once more while cards are out
        await pilot.press(*"finish", "enter")
        await pilot.pause()
    await until(pilot, lambda: app.model.my_status not in (None, "playing"), what="ada's game over")
    await bob.finish(race)
    await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the race's end")
    return race


async def test_rematch_takes_the_screen_to_the_new_lobby_and_offers_it_to_the_rival(
    make_server, tmp_path
) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(100, 40)) as pilot, connect(server.ws_url, name="bob") as bob:
        old = await race_over(pilot, app, bob)
        assert "Commands: rematch analysis menu quit" in app.help_text()
        assert status(app).startswith("race over — ") and status(app).endswith(
            "; 'rematch' for the same players again, 'menu' for another race, ctrl+q to quit"
        ), status(app)
        await pilot.press(*"rematch", "enter")
        await until(pilot, lambda: ready_in_rematch(app, old), what="ready in the rematch's lobby")
        new = app.model
        assert new.status == "lobby", new
        assert status(app).startswith(f"rematch {new.race_id}: you are ready"), status(app)
        offer = await bob.wait_for(m.RematchOffer, timeout=DEADLINE)
        assert (offer.race, offer.rematch, offer.name) == (old, new.race_id, "ada")
        # bob takes it: the countdown starts, and the screen goes on with the new race
        await bob.join(offer.rematch, invite=offer.invite)
        await bob.ready(offer.rematch)
        await until(pilot, lambda: app.model.status == "running", what="the rematch's start")
        assert app.model.race_id == new.race_id and old in app.races_left


async def test_accept_takes_the_rivals_offer_with_its_invite_and_readies(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    intent = Intent("create", "fours-up", 2, private=True)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), intent)
    async with app.run_test(size=(100, 40)) as pilot, connect(server.ws_url, name="bob") as bob:
        await until(pilot, lambda: app.model.invite is not None, what="the private race's invite")
        old = await race_over(pilot, app, bob)
        await pilot.press(*"accept", "enter")
        await until(pilot, lambda: "no rematch is offered" in status(app), what="accept refused")
        asked = await bob.request(m.Rematch(race=old))
        await until(pilot, lambda: "offers a rematch" in status(app), what="bob's offer shown")
        assert status(app) == f"bob offers a rematch (race {asked.race}): 'accept' takes it"
        assert "Commands: accept analysis menu quit" in app.help_text()
        await pilot.press(*"accept", "enter")
        await until(pilot, lambda: ready_in_rematch(app, old), what="ready in the rematch joined")
        assert app.model.race_id == asked.race and app.model.private
        await bob.ready(asked.race)
        await until(pilot, lambda: app.model.status == "running", what="the rematch's start")


async def test_a_refused_rematch_stays_on_the_race_with_the_servers_reason(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(100, 40)) as pilot, connect(server.ws_url, name="bob") as bob:
        old = await race_over(pilot, app, bob)
        asked = await bob.request(m.Rematch(race=old))
        await until(pilot, lambda: "offers a rematch" in status(app), what="bob's offer shown")
        async with connect(server.ws_url, name="cy") as cy:  # the rematch's last seat taken
            await cy.join(asked.race)
            await pilot.press(*"accept", "enter")
            await until(pilot, lambda: "could not join the rematch" in status(app), what="the refusal")
        assert "every seat is taken" in status(app) and app.model.race_id == old


async def test_offline_a_rematch_needs_a_server() -> None:
    async def connect() -> LocalSession:
        return LocalSession(name="ada", countdown_ms=50, rival_interval=5)

    app = PlayApp(connect, Intent("practice", "fours-up", 1))
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.model.status == "running", what="the offline race")
        for _ in range(2):
            await pilot.press(*"finish", "enter")
            await pilot.pause()
        await until(pilot, lambda: app.model.status == "finished", what="the race's end")
        assert "rematch" not in app.help_text() and "rematch" not in status(app), status(app)
        await pilot.press(*"rematch", "enter")
        await until(pilot, lambda: "need a server" in status(app), what="the refusal")


class _ReadyRefused:
    """A session over a finished race r1 whose rematch r2 seats the player, and whose `ready`
    then fails (the lobby went on without waiting)."""

    player, name, online = "p1", "ada", True

    def __init__(self) -> None:
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def server_now(self) -> int:
        return 0

    @staticmethod
    def snapshot(race: str, status: str) -> dict[str, Any]:
        players = [{"player": "p1", "name": "ada"}, {"player": "p2", "name": "bob"}]
        ranking = [{"rank": 1, "player": "p1"}, {"rank": 2, "player": "p2"}] if status == "finished" else None
        return dict(
            t="race",
            race=race,
            ver=1,
            game="fours-up",
            status=status,
            seats=2,
            players=players,
            ranking=ranking,
        )

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        if t == "resync":
            return {"t": "state", "race": self.snapshot("r1", "finished")}
        if t == "rematch":
            return self.snapshot("r2", "lobby")
        raise ServerError("race-started", "the race has started")

    async def close(self) -> None:
        pass


async def test_once_seated_in_the_rematch_the_screen_follows_even_if_ready_fails() -> None:
    session = _ReadyRefused()

    async def connect() -> _ReadyRefused:
        return session

    app = PlayApp(connect, Intent("resume", race="r1"))  # type: ignore[arg-type]
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.model.status == "finished", what="the finished race")
        await pilot.press(*"rematch", "enter")
        await until(pilot, lambda: app.model.race_id == "r2", what="the rematch's lobby")
        await until(pilot, lambda: "not ready" in status(app), what="the failed ready said")
        assert (
            status(app) == "rematch r2: you hold a seat, but not ready: the race has started — type 'ready'"
        )
