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
        127.0.0.1:8765 — is it running?``, for a refused connection or a name that does not
        resolve), or what did answer and why it would not do: another kind of server, a
        server without TLS to a wss:// or https:// URL, or a URL that is not a server's. The
        exceptions' classes and errnos told a player nothing: they stay in this exception's own
        text, for logs."""
        from urllib.parse import urlsplit

        said: list[str] = []
        silent: list[str] = []  # the places where nothing answered, said in one sentence
        for ep, exc in self.failures:
            place = urlsplit(ep.url).netloc or ep.url
            why = _answered(ep.url, place, exc)
            if why is None:
                if place not in silent:
                    silent.append(place)
                    if len(silent) == 1:
                        said.append("")  # where the sentence goes, once all are known
            elif why not in said:
                said.append(why)
        where = f" at {' or '.join(silent)}" if silent else ""
        if not said:  # no failure at all: no URL was given
            return f"no server answered{where} — is it running?"
        return "; ".join(why or f"no server answered{where} — is it running?" for why in said)


def _answered(url: str, place: str, exc: BaseException) -> str | None:
    """What answered at `place` and why it would not do, in words; None when nothing answered
    (the connection was refused, the host name did not resolve, no answer in time)."""
    import ssl
    from urllib.parse import urlsplit

    from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

    if isinstance(exc, InvalidURI):
        return f"{url} is not a server's URL (ws://, wss://, http:// or https://)"
    secure = urlsplit(url).scheme == "wss"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"{place} answered, but its TLS certificate was refused ({exc.verify_message or exc})"
    if isinstance(exc, ssl.SSLError) or (secure and isinstance(exc, ConnectionResetError | EOFError)):
        # A plain server meets a TLS hello with its own HTTP answer, or closes on it: ssl's
        # reason ("wrong version number") would tell a player nothing more.
        return (
            f"{place} answered, but not with the TLS a wss:// or https:// URL asks for: try ws:// or http://"
        )
    if isinstance(exc, InvalidHandshake | ConnectionClosed | m.ProtocolError):
        return f"{place} answered, but not as a solrace WebSocket server ({exc})"
    return None


def describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
