"""A client's session: who it is once hello succeeded, and where it takes part.

The transport (the socket, its outbound queue) is server/net/conn.py; the
session is what the race logic knows of a connection: its player, and the
races, spectated races and quick-match queues it is in.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from ..core.races import RaceError
from ..storage import keys

if TYPE_CHECKING:
    from ..service import Service

log = logging.getLogger("solrace.session")


class Session:
    __slots__ = ("send", "transport", "pid", "name", "races", "spectating", "quick", "__weakref__")

    def __init__(self, send: Callable[[bytes], None], transport: Any = None) -> None:
        self.send = send  # the connection's send: queue one frame, never blocks
        self.transport = transport  # the connection itself (server/net/conn.py), for broadcasts
        self.pid: str | None = None  # set by hello
        self.name = ""
        self.races: set[str] = set()  # races where this connection receives member events
        self.spectating: set[str] = set()
        self.quick: set[tuple[str, int]] = set()  # (game, seats) queues joined

    @property
    def player(self) -> str:
        """The player id of a session past hello (every request but hello comes after it)."""
        pid = self.pid
        assert pid is not None, "a request before hello"
        return pid


class SessionHandlers:
    def __init__(self, svc: Service) -> None:
        self.svc = svc

    async def hello(self, s: Session, msg: m.Hello) -> m.Welcome:
        svc = self.svc
        st = svc.settings
        if msg.v not in m.SUPPORTED_VERSIONS:
            raise RaceError(
                ErrorCode.BAD_VERSION,
                f"protocol version {msg.v} is not supported",
                supported=list(m.SUPPORTED_VERSIONS),
            )
        if msg.name is not None and len(msg.name) > st.max_name:
            raise RaceError(ErrorCode.BAD_MESSAGE, f"`name`: at most {st.max_name} characters", field="name")
        if msg.token is not None:
            found = await svc.store.resume_session(msg.token, msg.name)
            if found is None:
                raise RaceError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            pid, name = found
            token = msg.token
        else:
            name = msg.name or f"player-{secrets.token_hex(2)}"
            pid, token = await svc.store.new_session(name)
        s.pid, s.name = pid, name
        svc.players.setdefault(pid, set()).add(s)
        svc.bus.subscribe(keys.player_channel(pid))
        rids = await svc.store.player_races(pid)
        for rid in rids:
            _now, race = await svc.store.load_race(rid)
            if race is not None and race.status != RaceStatus.FINISHED:
                svc.add_member(s, race)
        return m.Welcome(
            rid=msg.rid,
            v=m.PROTOCOL_VERSION,
            player=pid,
            name=name,
            token=token,
            races=rids,
            time=svc.now_ms(),
            limits=st.limits(),
        )

    async def disconnect(self, s: Session) -> None:
        svc = self.svc
        pid = s.pid
        if pid is None:
            return
        sessions = svc.players.get(pid)
        if sessions is not None:
            sessions.discard(s)
            if not sessions:
                del svc.players[pid]
                svc.bus.unsubscribe(keys.player_channel(pid))
        for game, seats in list(s.quick):
            try:
                await svc.store.quick_remove(game, seats, pid)
            except Exception:
                log.warning("could not leave the quick-match queue", exc_info=True)
        for rid in list(s.races):
            svc.remove_member(s, rid)
        for rid in list(s.spectating):
            await svc.watch.unspectate_race(s, rid)
        for hook in svc.disconnect_hooks:
            await hook(s)
