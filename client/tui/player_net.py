"""The requests about the player rather than one race (daily challenges, ratings, recent
races) through the client library's methods (``net.NetSession.request`` hands these types
here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.messages import ErrorCode

from .errors import ServerError

if TYPE_CHECKING:
    from client.library.connection import Client

#: The request types handled here (docs/protocol.md §5 and §9).
PLAYER_TYPES = frozenset(
    {"daily", "daily_start", "leaderboard", "history", "profile", "rating_board", "recent"}
)


async def player_request(c: Client, t: str, f: dict[str, Any]) -> object:
    """Send request ``t`` with fields ``f``; the typed reply."""
    if t == "daily":
        return await c.daily(f["game"], date=f.get("date"))
    if t == "daily_start":
        return await c.daily_start(f["game"])
    if t == "leaderboard":
        return await c.leaderboard(f["game"], date=f.get("date"), top=f.get("top"), around=f.get("around"))
    if t == "history":
        return await c.history(f["game"], player=f.get("player"), days=f.get("days"))
    if t == "profile":
        return await c.profile(f.get("player"))
    if t == "rating_board":
        return await c.rating_board(f["game"], top=f.get("top"), around=f.get("around"))
    if t == "recent":
        return await c.recent(f.get("limit"))
    raise ServerError(ErrorCode.UNKNOWN_TYPE, f"the client does not send {t!r}")
