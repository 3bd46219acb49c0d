"""hello (identity, resumed seats), ping (the server's clock) and disconnect
(docs/protocol.md §2).

A hello without a token creates a session: at most NEW_SESSIONS_PER_MIN per
client address (all processes, server/storage/sessions.py), beyond which it
is refused with `rate-limited` and the wait in `retry_ms`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable

from protocol import messages as m

from ..core import hello as hello_rules
from ..core import races as R
from ..core.session import Session
from ..net.addresses import in_networks, parse_networks
from ..storage import keys
from .runtime import Runtime

log = logging.getLogger("solrace.session")

PLAYER_CHANNEL_LINGER_S = 30.0  # a player's channel stays subscribed this long after its last connection


class SessionHandlers:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self._exempt = parse_networks(svc.settings.limit_exempt, "limit-exempt")
        # Run by hello once the connection is one of its player's here (`players`), before its
        # races and the welcome; raising refuses the hello. Accounts check the token again here:
        # a revocation's close that ran since the first check did not see the connection.
        self.registered_hooks: list[Callable[[Session], Awaitable[None]]] = []
        # Run by hello with the unfinished races it rejoined (the player is back in them).
        self.rejoined_hooks: list[Callable[[Session, list[R.Race]], Awaitable[None]]] = []
        # Run when a player's last connection here closes, before it leaves its races' rooms.
        self.last_closed_hooks: list[Callable[[Session], None]] = []
        # Whether an account holds one of these name keys (set by the accounts handlers): a guest's
        # hello may not take an account's name. None: no accounts here.
        self.account_names_held: Callable[[list[str]], Awaitable[bool]] | None = None

    def limit_exempt(self, addr: str) -> bool:
        """Whether `addr` is one the per-address limits do not count (--limit-exempt: local tools)."""
        return in_networks(addr, self._exempt)

    async def ping(self, s: Session, msg: m.Ping) -> m.Pong:
        """§2: the server's clock (an estimate of Redis' TIME), for the client's offset."""
        return m.Pong(rid=msg.rid, time=self.svc.now_ms())

    async def hello(
        self, s: Session, msg: m.Hello, admit: Callable[[str], Awaitable[bool]] | None = None
    ) -> m.Welcome | None:
        """The welcome; None if `admit` refused the player (too many connections), before
        anything of the player changed: a resumed guest's new name is stored only once the
        connection is admitted (a refused hello renamed the player)."""
        svc = self.svc
        st = svc.settings
        plan = hello_rules.plan_hello(
            msg.v, msg.name, msg.token, max_name=st.max_name, exempt=self.limit_exempt(s.addr)
        )
        seats: list[str] | None = []  # a new session holds none
        rename = None
        if plan.resume is not None:
            found = await svc.resume(s, plan.resume)  # a guest's or an account's token
            if found is None:
                raise hello_rules.unknown_token()
            pid, name, seats = found.player, found.name, found.seats
            token = plan.resume
            if not found.account:
                s.guest_token = token
                if msg.name is not None and msg.name != name:
                    await self._check_name(msg.name)
                    rename = name = msg.name
        else:
            if msg.name is not None:  # before the address's allowance is spent on it
                await self._check_name(msg.name)
            if plan.count_new:
                wait_ms = await svc.store.sessions.admit_new(s.addr)
                if wait_ms:
                    raise hello_rules.too_many_new_sessions(wait_ms)
            name = hello_rules.new_session_name(msg.name, secrets.token_hex(2))
            pid, token = await svc.store.sessions.new_session(name)
            s.guest_token = token
        if admit is not None and not await admit(pid):
            return None
        s.pid, s.name = pid, name
        svc.players.setdefault(pid, set()).add(s)
        svc.bus.subscribe(keys.player_channel(pid))
        for hook in self.registered_hooks:
            await hook(s)
        rids = await self._rejoin(s, pid, seats)
        if rename is not None:  # the last step: a hello that fails before it renames nobody
            await svc.store.sessions.rename(pid, rename)
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

    async def _check_name(self, name: str) -> None:
        """Refuse (`name-taken`) a name a guest may not take: reserved, or an account's (a read
        of the accounts' index, only for a name shaped like an account's)."""
        if hello_rules.reserved_name(name):
            raise hello_rules.name_taken()
        held = self.account_names_held
        wanted = hello_rules.account_name_keys(name)
        if held is not None and wanted and await held(wanted):
            raise hello_rules.name_taken()

    async def _rejoin(self, s: Session, pid: str, seats: list[str] | None) -> list[str]:
        """Make `s` a member of the player's unfinished races (one round trip); their ids, sorted.

        Seats in races that are finished, gone, or no longer the player's are dropped, through
        the seats' own prune (storage/seats.lua): a seat reserved for a create or join in
        progress (its race not stored yet) stays. A waiting quick-match entry's seat
        (`quick_hold`, `rated_hold`) is no race: it is neither listed nor dropped here.
        """
        svc = self.svc
        if seats is None:
            seats = await svc.store.sessions.seats(pid)
        seats = [rid for rid in seats if keys.valid_race_id(rid)]
        if not seats:
            return []
        live: list[R.Race] = []
        gone: list[str] = []
        for rid, race in zip(seats, await svc.store.load_races(seats)):
            if isinstance(race, BaseException):
                raise race
            if hello_rules.rejoins(race) and race.seat_of(pid) is not None:
                svc.add_member(s, race)
                live.append(race)
            else:
                gone.append(rid)
        if gone:
            await svc.store.prune_seats(pid, *gone)
        for hook in self.rejoined_hooks if live else ():
            await hook(s, live)
        return sorted(r.race for r in live)

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
                for closed_hook in self.last_closed_hooks:
                    try:
                        closed_hook(s)
                    except Exception as exc:
                        svc.failed("a last-connection clean-up failed", exc)
                # Kept a while: a player who reconnects soon (a dropped link, a storm) costs no
                # unsubscribe and subscribe; notices meanwhile find no connection and are dropped.
                asyncio.get_running_loop().call_later(PLAYER_CHANNEL_LINGER_S, self._unsubscribe_player, pid)
        # Each clean-up on its own: one that fails (Redis trouble, a bug) must not leave the
        # others' entries (a quick-match or rated pool entry, a spectator count) to expire.
        for rid in list(s.races):
            try:
                svc.remove_member(s, rid)
            except Exception as exc:
                svc.failed("could not drop a closed connection's race", exc)
        for rid in list(s.spectating):
            try:
                await svc.unspectate(s, rid)
            except Exception as exc:
                svc.failed("could not stop a closed connection's watching", exc)
        for hook in svc.disconnect_hooks:
            try:
                await hook(s)
            except Exception as exc:
                svc.failed("a disconnect clean-up failed", exc)
