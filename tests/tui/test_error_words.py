"""Server errors in the terminal read as sentences for a player (client/tui/errors.py): the
server's message, or the client's words where the message is in protocol terms; never the
bare code ("(race-started)"), unless nothing else says anything. Against a real server:
`solrace play --join RACE` of a race that already started, or does not exist."""

from __future__ import annotations

import pytest

from client.tui.errors import ServerError
from client.tui.intent import Intent
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (ServerError("race-started", "the race has already started"), "the race has already started"),
        (ServerError("race-full", "every seat is taken"), "every seat is taken"),
        (ServerError("not-host", "only the host may start the race"), "only the host may start the race"),
        # in protocol terms on the wire: the client's words instead
        (
            ServerError("out-of-sync", "move count mismatch; state follows", n=7),
            "your board was behind the server's: it is brought up to date, play the move again",
        ),
        (
            ServerError("rate-limited", "message credits exhausted; the message was dropped", retry_ms=1200),
            "too many requests: try again in 2 s",
        ),
        (ServerError("timeout", "no reply from the server"), "the server did not answer in time: try again"),
        (
            ServerError(
                "illegal-move",
                "illegal move 'w>f3' (empty-source): the waste is empty",
                reason="empty-source",
            ),
            "the waste is empty",
        ),
        # a newer server's code the client has no words for: its message
        (ServerError("brand-new", "a newer server's refusal"), "a newer server's refusal"),
    ],
)
def test_an_error_reads_as_a_sentence_without_its_code(error: ServerError, said: str) -> None:
    assert error.describe() == said


def test_the_code_shows_only_when_nothing_else_says_anything() -> None:
    assert ServerError("brand-new").describe() == "the server refused the request (brand-new)"


def status(app: PlayApp) -> str:
    return rendered(app.query_one("#status"))


async def test_a_refused_join_says_why_in_words(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=60_000)
    async with connect(server.ws_url, name="bob") as bob:
        race = (await bob.create("fours-up", 1)).race
        await bob.ready(race)  # a race of one seat: its countdown begins
        for rid, why in ((race, "the race has already started"), ("nosuchrace", "no such race")):
            app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("join", race=rid))
            async with app.run_test(size=(100, 40)) as pilot:
                await until(pilot, lambda app=app: "cannot join" in status(app), what="the refusal")
                said = status(app)
                assert said.startswith(f"cannot join race {rid}: {why}"), said
                assert "race-started" not in said and "no-such-race" not in said, said


async def test_an_error_event_reads_as_a_sentence() -> None:
    from .helpers import offline_play

    app, _ = offline_play(countdown_ms=60_000)  # no start to say "Go!" over the error
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.model.status == "countdown", what="the countdown")
        app.on_server_event(
            {"t": "error", "code": "rate-limited", "message": "message credits exhausted", "retry_ms": 500}
        )
        await until(pilot, lambda: "too many requests" in status(app), what="the error said")
        assert status(app) == "too many requests: try again in 1 s"


def test_a_failed_connection_reads_as_words_and_its_exception_goes_to_the_log(caplog) -> None:
    """What the status line says when connecting failed (client/tui/errors.py
    `connect_error_text`): where no server answered, or a refusal's words; the exception's
    class and errno only in the log."""
    import logging

    from client.library import Unreachable
    from client.library.endpoints import Endpoint
    from client.library.errors import ServerError as LibraryError
    from client.tui.errors import connect_error_text
    from protocol.messages.server_lobby import Error

    refused = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 8765)")
    two = Unreachable(
        [(Endpoint("ws://127.0.0.1:8765/ws"), refused), (Endpoint("ws://127.0.0.1:8766/ws"), refused)]
    )
    with caplog.at_level(logging.INFO, logger="solrace.tui"):
        said = connect_error_text(two)
    assert said == "no server answered at 127.0.0.1:8765 or 127.0.0.1:8766 — is it running?"
    assert "ConnectionRefusedError" in caplog.text and "8766" in caplog.text
    limited = LibraryError(Error(code="rate-limited", message="slow down", retry_ms=3000))
    assert connect_error_text(limited) == "too many requests: try again in 3 s"  # not "rate-limited: …"
