"""A race command typed while the connection is lost (ready, start, leave, finish, refresh,
hint, analysis, rematch…) is said at once not sent, to be typed again once reconnected, as a
move is (tests/tui/test_move_while_disconnected.py). Each was handed to the client library,
which held it for its reconnection: the status line said nothing for 10 s, then "the server
did not answer in time: try again". What needs no server (help, rules, legal) still acts.

While the connection is lost the header says so too, until it is back: in a race it named
the game, the race and the clock only, as if all were well.

The play app over the real client library against a real server (in this process), which
stops mid-race and, where the test goes on, comes back on the same port and Redis."""

from __future__ import annotations

from client.tui.intent import Intent
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import ready_and_started, rendered, until

#: What a command typed while the connection is lost is told.
NOT_SENT = "not sent — the connection to the server is lost (reconnecting…): type it again once reconnected"


def ada_app(server, tmp_path, mode: str, seats: int) -> PlayApp:
    """The play app of player ada on ``server``, going to a Fours Up race of ``seats`` by ``mode``
    (`create`, `quick`), its token kept in ``tmp_path``."""
    return PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent(mode, "fours-up", seats))


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


def header(app: PlayApp) -> str:
    return rendered(app.query_one("#info"))


async def typed(pilot, line: str) -> str:
    """The status line once ``line`` typed has changed it (it is emptied first, so that the
    same words said twice are seen), past a line saying the server is being asked ("hint:
    asking the server's search…")."""
    app = pilot.app
    app.say("")

    def said() -> str:
        text = status(app)
        return "" if text.endswith("…") else text

    await pilot.press(*line, "enter")
    return await until(pilot, said, what=f"what {line!r} says")


async def dropped(pilot, server) -> None:
    await server.stop()
    await until(pilot, lambda: "connection lost" in status(pilot.app), what="the drop said")


async def test_race_commands_while_disconnected_are_said_not_sent(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    app = ada_app(server, tmp_path, "create", 1)
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        await dropped(pilot, server)
        assert await typed(pilot, "hint") == f"hint: {NOT_SENT}"
        for line in ("refresh", "leave"):
            assert await typed(pilot, line) == NOT_SENT
        # The first `finish` only asks to be confirmed (no server); the second is not sent.
        assert (await typed(pilot, "finish")).endswith("type 'finish' again to confirm")
        assert await typed(pilot, "finish") == NOT_SENT
        assert app.model.status == "running" and app.model.my_status == "playing"

        # What needs no server still acts.
        assert (await typed(pilot, "help")).startswith("Click a card")
        assert (await typed(pilot, "rules")).startswith("Fours Up")
        assert (await typed(pilot, "legal")).startswith("all ")


async def test_lobby_commands_while_disconnected_then_reconnected(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    port = server.port
    app = ada_app(server, tmp_path, "create", 2)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "lobby", what="the lobby")
        await dropped(pilot, server)
        for line in ("ready", "unready", "start", "leave"):
            assert await typed(pilot, line) == NOT_SENT
        assert app.model.status == "lobby"

        # The server back (its races are in Redis): `ready` typed again is sent.
        await make_server(countdown_ms=100, port=port)
        await until(pilot, lambda: status(app) == "reconnected", what="reconnected")
        assert (await typed(pilot, "ready")).startswith("ready: ok")


async def test_the_header_says_the_connection_is_lost_until_it_is_back(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    port = server.port
    app = ada_app(server, tmp_path, "create", 1)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready_and_started(pilot)
        race = f"race {app.model.race_id}"
        assert "connection lost" not in header(app) and race in header(app)
        await dropped(pilot, server)
        # On the first line, in the race id's place: the clock still fits 80 columns. It stays
        # when the status line says something else.
        await until(pilot, lambda: "connection lost" in header(app), what="the header says the drop")
        first = header(app).splitlines()[0]
        assert first.startswith("Fours Up · connection lost — reconnecting… · running · ")
        assert first.endswith(" left") and race not in first
        await typed(pilot, "help")
        assert "connection lost — reconnecting…" in header(app)

        await make_server(countdown_ms=100, port=port)
        await until(pilot, lambda: status(app) == "reconnected", what="reconnected")
        await until(pilot, lambda: "connection lost" not in header(app), what="the header's drop gone")
        assert race in header(app)


async def test_commands_of_a_finished_race_while_disconnected(make_server, tmp_path) -> None:
    server = await make_server(countdown_ms=100)
    app = ada_app(server, tmp_path, "create", 1)
    async with app.run_test(size=(110, 45)) as pilot:
        await ready_and_started(pilot)
        await pilot.press(*"finish", "enter", *"finish", "enter")
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="race over")
        await dropped(pilot, server)
        assert await typed(pilot, "analysis") == f"analysis: {NOT_SENT}"
        assert await typed(pilot, "rematch") == f"rematch: {NOT_SENT}"
        assert app.model.status == "finished"


async def test_leaving_the_queue_while_disconnected(make_server, tmp_path) -> None:
    server = await make_server()
    app = ada_app(server, tmp_path, "quick", 2)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="in the queue")
        await dropped(pilot, server)
        assert await typed(pilot, "leave") == NOT_SENT
        assert await typed(pilot, "menu") == NOT_SENT
        assert app.model.status == "queued"
