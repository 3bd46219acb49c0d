"""hello (identity, resumed seats) and disconnect (docs/protocol.md §2).

A hello without a token creates a session: at most NEW_SESSIONS_PER_MIN per
client address (all processes, server/storage/sessions.py), beyond which it
is refused with `rate-limited` and the wait in `retry_ms`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from ..core.races import RaceError
from ..core.session import Session
from ..storage import keys
from .runtime import Runtime

log = logging.getLogger("solrace.session")

PLAYER_CHANNEL_LINGER_S = 30.0  # a player's channel stays subscribed this long after its last connection


def exempt_networks(spec: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(x.strip(), strict=False) for x in spec.split(",") if x.strip()]


class SessionHandlers:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.exempt = exempt_networks(svc.settings.limit_exempt)

    def limit_exempt(self, addr: str) -> bool:
        """Addresses whose new sessions are not counted (local tools; the limit_exempt setting)."""
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return False
        return any(ip in net for net in self.exempt)

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
        seats: list[str] | None = []  # a new session holds none
        if msg.token is not None:
            found = await svc.resume(s, msg.token, msg.name)  # a guest's or an account's token
            if found is None:
                raise RaceError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            pid, name, seats = found.player, found.name, found.seats
            token = msg.token
        else:
            if not self.limit_exempt(s.addr):
                wait_ms = await svc.store.sessions.admit_new(s.addr)
                if wait_ms:
                    raise RaceError(
                        ErrorCode.RATE_LIMITED,
                        "too many new sessions from this address; resume one with its token",
                        retry_ms=wait_ms,
                    )
            name = msg.name or f"player-{secrets.token_hex(2)}"
            pid, token = await svc.store.sessions.new_session(name)
        s.pid, s.name = pid, name
        svc.players.setdefault(pid, set()).add(s)
        svc.bus.subscribe(keys.player_channel(pid))
        rids = await self._rejoin(s, pid, seats)
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

    async def _rejoin(self, s: Session, pid: str, seats: list[str] | None) -> list[str]:
        """Make `s` a member of the player's unfinished races (one round trip); their ids, sorted.

        Seats in races that are finished, gone, or no longer the player's are dropped.
        """
        svc = self.svc
        if seats is None:
            seats = await svc.store.sessions.seats(pid)
        if not seats:
            return []
        live, gone = [], []
        for rid, race in zip(seats, await svc.store.load_races(seats)):
            if isinstance(race, BaseException):
                raise race
            if race is None or race.status == RaceStatus.FINISHED or race.seat_of(pid) is None:
                gone.append(rid)
            else:
                svc.add_member(s, race)
                live.append(rid)
        if gone:
            await svc.store.sessions.forget_seats(pid, gone)
        return sorted(live)

    def _unsubscribe_player(self, pid: str) -> None:
        if pid not in self.svc.players:
            self.svc.bus.unsubscribe(keys.player_channel(pid))

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
                # Kept a while: a player who reconnects soon (a dropped link, a storm) costs no
                # unsubscribe and subscribe; notices meanwhile find no connection and are dropped.
                asyncio.get_running_loop().call_later(PLAYER_CHANNEL_LINGER_S, self._unsubscribe_player, pid)
        for game, seats in list(s.quick):
            try:
                await svc.store.quick_remove(game, seats, pid)
            except Exception as exc:
                svc.failed("could not leave the quick-match queue", exc)
        for rid in list(s.races):
            svc.remove_member(s, rid)
        for rid in list(s.spectating):
            await svc.unspectate(s, rid)
        for hook in svc.disconnect_hooks:
            await hook(s)
