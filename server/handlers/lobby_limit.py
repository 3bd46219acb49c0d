"""The limit of open public lobbies per client address (--max-public-lobbies-per-addr), counted
in Redis across every process as a public race is created (`create`, a rated `create`, a
`rematch`)."""

from __future__ import annotations

from collections.abc import Callable

from protocol.messages import ErrorCode

from ..core.lobby import open_lobbies
from ..core.races import RaceError
from ..core.session import Session
from .runtime import Runtime


class PublicLobbyLimit:
    def __init__(self, svc: Runtime, exempt: Callable[[str], bool]) -> None:
        self.svc = svc
        self.exempt = exempt  # the addresses no per-address limit counts (--limit-exempt)

    async def __call__(self, s: Session, rid: str) -> None:
        """Count the public lobby `rid` about to be created by `s` against its client address
        (all processes, in Redis), or refuse it (`too-many-races`, nothing kept) when the
        address already has --max-public-lobbies-per-addr open ones: else one address could
        fill the public race list, a lobby per guest session it may create.

        Private races are not limited here: they are not listed, and each costs its player a
        seat (MAX_RACES_PER_PLAYER) like any race."""
        svc = self.svc
        most = svc.settings.max_public_lobbies_per_addr
        if most <= 0 or not s.addr or self.exempt(s.addr):
            return
        sessions = svc.store.sessions
        now = await svc.store.time_ms()
        noted = await sessions.note_lobby(s.addr, rid, now, svc.settings.lobby_ttl_s * 1000)
        # Noted before counting: of two creates at once from one address, each sees the other
        # (never both in past the limit).
        others = [(r, at) for r, at in noted if r != rid]
        loaded = await svc.store.load_races([r for r, _ in others]) if others else []
        still, gone = open_lobbies(others, loaded, now)
        refused = len(still) >= most
        forget = gone + [rid] if refused else gone
        await sessions.forget_lobbies(s.addr, forget)
        if refused:
            raise RaceError(
                ErrorCode.TOO_MANY_RACES,
                f"{most} public lobbies from your address wait for players already: "
                "start or leave one, or create a private race",
            )
