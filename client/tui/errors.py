"""Server errors in the player's words: the one place the terminal apps map an error code
(docs/protocol.md §6) to what a player reads.

The server's `message`s are mostly sentences for people already ("the race has already
started", "every seat is taken", "only the host may start the race"), and many carry what
only the server knows (how many seats, which game ids, which rule a name breaks): those are
shown as they are. ``WORDS`` lists only the codes whose every message the apps can say
better to a player: one in protocol terms ("move count mismatch; state follows"), the
errors the client itself makes (``timeout``, ``disconnected``, ``reply-lost``), and the account commands'
(their words name the rule). The code itself is not shown: it is for programs, and a
player cannot act on it; it appears only when neither a message nor words say anything.

Nothing in server/ uses this: the server's messages are its own.
"""

from __future__ import annotations

import logging
import math
from typing import Any

#: What the player reads for an error code, in place of the server's message (see above).
WORDS: dict[str, str] = {
    # in a race
    "out-of-sync": "your board was behind the server's: it is brought up to date, play the move again",
    "hints-forbidden": "hints are for a casual race of one seat (not with rivals, rated, a daily, "
    "or one made without hints)",
    "solver-busy": "the server's solver is busy",
    # the connection, and the client's own
    "rate-limited": "too many requests",
    "unknown-type": "this server does not know that request (an older server?)",
    "timeout": "the server did not answer in time: try again",
    # the header's words while the connection is lost (race_text.connection_text)
    "disconnected": "connection lost — reconnecting… (not connected to the server): try again once reconnected",
    # Sent, then the connection dropped: for what changes nothing (a menu's list) the same as
    # not sent. What changes something may have been done: the race screen says to look.
    "reply-lost": "connection lost — reconnecting… (before the server answered): try again once reconnected",
    # accounts (docs/protocol.md §9)
    "bad-login": "unknown name or wrong password",
    "bad-name": "names are 3 to 20 letters, digits, _ or -, starting with a letter or a digit",
    "bad-password": "passwords are 8 to 256 characters, not only spaces, and not the name",
    "name-taken": "that name is taken by another account",
    "already-account": "this player already is an account",
    "login-limited": "too many login attempts for this name or from this address",
    "claim-limited": "too many accounts made from this address",
    "conflict": "the account changed meanwhile (another password change?)",
}

#: The code of the error for a request sent before the connection dropped, whose reply never
#: came: the server may have done it (client.library's `ReplyLost`, as client/tui/net.py says it).
REPLY_LOST = "reply-lost"

#: The codes that mean "not now": their words end with when to try again.
WAIT_CODES = ("login-limited", "claim-limited", "rate-limited", "solver-busy")


def retry_text(ms: int | float | None) -> str:
    """A wait in words: ``45 s``, ``4 min 10 s``, ``5 min``."""
    s = max(1, math.ceil((ms or 0) / 1000))
    m, s = divmod(s, 60)
    if not m:
        return f"{s} s"
    return f"{m} min {s} s" if s else f"{m} min"


def error_text(code: str, message: str = "", retry_ms: int | float | None = None) -> str:
    """An error as one sentence for a player: ``WORDS``' for its code, else the server's
    message; then when to try again (``retry_ms``). No code, unless nothing else is known."""
    text = WORDS.get(code) or message or f"the server refused the request ({code})"
    if isinstance(retry_ms, int | float) and retry_ms > 0:
        text += f": try again in {retry_text(retry_ms)}"
    elif code in WAIT_CODES:
        text += ": try again later"
    return text


class ServerError(Exception):
    """An ``error`` reply: ``code`` (stable), ``message`` and extra fields."""

    def __init__(self, code: str, message: str = "", **extra: Any):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.extra = extra

    def describe(self) -> str:
        """The error as a sentence for the player (`error_text`: the words for its code, else the
        server's message), no code: "the race has already started". What the
        message already says is not repeated: the rules engine's own "illegal move 'w>f3'
        (reason): " head, whose move the apps show before this."""
        text = self.message
        reason = self.extra.get("reason")
        if reason and text.startswith("illegal move "):
            head, sep, rest = text.partition(f"({reason}): ")
            text = rest if sep else text
        return error_text(self.code, text, self.extra.get("retry_ms"))


def connect_error_text(e: BaseException) -> str:
    """Why connecting failed, in a player's words: where no server answered (``no server
    answered at 127.0.0.1:8765 — is it running?``), a refusal's words, else the error's own
    text. Never the exception's class (``ConnectionRefusedError``…): that goes to the log, each
    address's (textual's: ``TEXTUAL_LOG=FILE`` or ``textual console``; and the ``solrace.tui``
    logger)."""
    from textual import log

    from client.library import Unreachable
    from client.library.errors import ServerError as LibraryError
    from client.library.errors import describe

    failures = getattr(e, "failures", None) or []
    detail = "; ".join(f"{ep}: {describe(exc)}" for ep, exc in failures) or describe(e)
    log.error(f"cannot connect: {detail}")
    logging.getLogger("solrace.tui").info("cannot connect: %s", detail)
    if isinstance(e, ServerError):
        return e.describe()
    if isinstance(e, LibraryError):
        return error_text(str(e.code), e.message or "", e.retry_ms)
    if isinstance(e, Unreachable):
        return e.plain()
    return str(e) or "the connection failed"


#: Why the server closed the connection, by its close code (docs/protocol.md §6), when it
#: gave no reason: the number (``1006``) told a player nothing.
CLOSE_WORDS: dict[int, str] = {
    1001: "the server is going away",
    1006: "the server stopped answering",
    1008: "the server closed it: too many requests or connections",
    1009: "a message was too big for the server",
    1011: "the server hit an internal error",
    1012: "the server is restarting",
}


def connection_lost_text(ev: dict[str, Any]) -> str:
    """The status line once the connection dropped (a `disconnected` event): why in words
    (the server's reason, else the close code's words; never the code), and that the client
    reconnects."""
    reason = str(ev.get("reason") or "").strip()
    code = ev.get("code")
    why = reason or CLOSE_WORDS.get(code if isinstance(code, int) else 1006, "the connection closed")
    return f"connection lost ({why}); reconnecting…"
