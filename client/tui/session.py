"""The connection the terminal apps talk through.

The apps need very little from a connection: ``request(t, **fields)`` sends a
request and returns the reply as a dict (docs/protocol.md), raising
:class:`ServerError` (client/tui/errors.py) for an ``error`` reply; unsolicited events arrive on the
``events`` queue as dicts; ``server_now()`` is the server clock in ms.

* ``client.tui.offline.LocalSession`` plays races offline with the rules engine
  against simulated rivals (``solrace play --offline``); tests use it to drive
  the UI without a server.
* ``client.tui.net`` adapts the asyncio client library to this interface.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .errors import ServerError
from .intent import Intent


class Session(Protocol):
    player: str
    name: str
    events: asyncio.Queue[dict[str, Any]]

    def server_now(self) -> int: ...

    async def request(self, t: str, **fields: Any) -> dict[str, Any]: ...

    async def close(self) -> None: ...


class GatedSession:
    """``session`` with its requests sent through ``request`` (the play app's
    ``PlayApp.request``, which refuses them while the connection is lost), for what takes a
    session: a hint, an analysis, a rematch."""

    def __init__(self, session: Session, request: Callable[..., Awaitable[dict[str, Any]]]) -> None:
        self.session = session
        self._request = request
        self.player = session.player
        self.name = session.name
        self.events = session.events

    def server_now(self) -> int:
        return self.session.server_now()

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        return await self._request(t, **fields)

    async def close(self) -> None:
        await self.session.close()


async def race_bot(
    session: Session, game: str, level: str, time_limit_s: int, left: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """A private two-seat race of ``game`` with a bot of ``level``, and us ready: its snapshot
    (the browser's client/web/static/js/botrace.js, docs/protocol.md §3 `bot`). The bot is
    ready as soon as it sits, so the countdown starts then, with no wait for a quick-match.

    When no bot comes (`no-bots`: every worker is busy) the lobby is left, ``left`` is told
    its id (its events may still come), and the error is raised."""
    race = (await session.request("create", game=game, seats=2, time_limit_s=time_limit_s, private=True))[
        "race"
    ]
    try:
        await session.request("bot", race=race, level=level)
    except ServerError:
        # Else the token would hold the empty lobby's seat, and bring the player back to it.
        if left is not None:
            left(race)
        try:
            await session.request("leave", race=race)
        except ServerError:
            pass
        raise
    return await session.request("ready", race=race, ready=True)


async def start(
    session: Session, intent: Intent, left: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The request (or requests) that does what the player chose: the reply is the race's
    snapshot, its state, or `queued`. ``left``: as for :func:`race_bot`. A rematch asked
    (``rematch``) or accepted (``accept``: a `join` with its invite) is not readied here."""
    rated = {"rated": True} if intent.rated else {}
    invite = {"invite": intent.invite} if intent.invite else {}
    if intent.mode == "quick":
        return await session.request("quick", game=intent.game, seats=intent.seats, **rated)
    if intent.mode == "create":
        return await session.request(
            "create",
            game=intent.game,
            seats=intent.seats,
            time_limit_s=intent.time_limit_s,
            private=intent.private,
            **rated,
        )
    if intent.mode == "practice":  # a race of one seat, ready at once
        created = await session.request("create", game=intent.game, seats=1, private=True)
        return await session.request("ready", race=created["race"], ready=True)
    if intent.mode == "bot":
        assert intent.game is not None
        return await race_bot(session, intent.game, intent.level, intent.time_limit_s, left=left)
    if intent.mode == "daily":
        return await session.request("daily_start", game=intent.game)
    if intent.mode == "rematch":  # the seat only: the caller readies (menu_flow.play_again)
        return await session.request("rematch", race=intent.race)
    if intent.mode == "resume":
        return await session.request("resync", race=intent.race, **invite)
    return await session.request("join", race=intent.race, **invite)  # join, accept


def now_ms() -> int:
    return int(time.time() * 1000)
