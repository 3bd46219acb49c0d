"""The arena requests of the terminal apps through the client library's arena methods
(``net.NetSession.request`` hands every ``arena*`` type here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.messages import ErrorCode

from .errors import ServerError

if TYPE_CHECKING:
    from client.library.connection import Client


async def arena_request(c: Client, t: str, f: dict[str, Any]) -> object:
    """Send arena request ``t`` with fields ``f``; the typed reply."""
    if t == "arenas":
        return await c.arenas()
    if t == "arena":
        return await c.arena(f["arena"])
    if t == "arena_join":
        return await c.arena_join(f["arena"])
    if t == "arena_withdraw":
        return await c.arena_withdraw(f["arena"])
    if t == "arena_standings":
        return await c.arena_standings(
            f["arena"], top=f.get("top"), around=f.get("around"), watch=bool(f.get("watch"))
        )
    if t == "arena_unwatch":
        return await c.arena_unwatch(f["arena"])
    if t == "arena_berserk":
        return await c.arena_berserk(f["arena"], f["race"])
    raise ServerError(ErrorCode.UNKNOWN_TYPE, f"the client does not send {t!r}")
