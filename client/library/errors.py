"""What a request or a connection can fail with."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import messages as m

if TYPE_CHECKING:  # pragma: no cover
    from .endpoints import Endpoint


class ServerError(Exception):
    """An `error` reply. `code` is the stable protocol code (docs/protocol.md §6)."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = error.code
        self.message = error.message
        self.field = error.field
        self.reason = error.reason  # illegal-move: the rules engine's code
        self.n = error.n  # out-of-sync: the server's move count
        self.retry_ms = error.retry_ms
        self.supported = error.supported


class IllegalMoveError(ServerError):
    """`illegal-move`: the rules refused the move; `.reason` says why."""


class NotConnected(RuntimeError):
    """Asked for what only the server's `welcome` tells (`player`, `token`, `name`,
    `welcome`) before the client ever connected: `await c.open()` (or `async with
    connect(...)`) first. A mistake in the caller, not a connection failure."""


class Disconnected(ConnectionError):
    """The connection is gone (and is not being re-established)."""


class ReplyLost(Disconnected):
    """The connection dropped after the request was sent and before its reply came: the
    server may have acted on it or not (a `create` made its race, a move was played).
    Raised at once, on the drop, not at the request's timeout. After a reconnect the
    server's state says which: the client resyncs the boards of the races it plays."""


class Unreachable(Disconnected):
    """No endpoint answered a round of connection attempts.

    `failures` holds, per endpoint tried, what went wrong (the last one is
    also the exception's `__cause__`).
    """

    def __init__(self, failures: list[tuple[Endpoint, BaseException]]) -> None:
        tried = "; ".join(f"{ep}: {describe(exc)}" for ep, exc in failures) or "no server URL"
        super().__init__(f"no server answered ({tried})")
        self.failures = failures

    def plain(self) -> str:
        """In a player's words: where no server answered (``no server answered at
        127.0.0.1:8765 — is it running?``). The exceptions' classes and errnos told a player
        nothing: they stay in this exception's own text, for logs."""
        from urllib.parse import urlsplit

        places = list(dict.fromkeys(urlsplit(ep.url).netloc or ep.url for ep, _exc in self.failures))
        where = f" at {' or '.join(places)}" if places else ""
        return f"no server answered{where} — is it running?"


def describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
