"""hello (identity, resumed seats) and disconnect (docs/protocol.md §2).

A hello without a token creates a session: at most NEW_SESSIONS_PER_MIN per
client address (all processes, server/storage/sessions.py), beyond which it
is refused with `rate-limited` and the wait in `retry_ms`.
"""

from __future__ import annotations

import logging
import secrets

from protocol import messages as m

from ..core import hello as hello_rules
from ..core.session import Session
from ..storage import keys
from .runtime import Runtime

log = logging.getLogger("solrace.session")


class SessionHandlers:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.exempt = hello_rules.exempt_networks(svc.settings.limit_exempt)

    async def hello(self, s: Session, msg: m.Hello) -> m.Welcome:
        svc = self.svc
        st = svc.settings
        plan = hello_rules.plan_hello(
            msg.v, msg.name, msg.token, s.addr, max_name=st.max_name, exempt=self.exempt
        )
        if plan.resume is not None:
            found = await svc.resume(s, plan.resume, msg.name)  # a guest's or an account's token
            if found is None:
                raise hello_rules.unknown_token()
            pid, name = found
            token = plan.resume
        else:
            if plan.count_new:
                wait_ms = await svc.store.sessions.admit_new(s.addr)
                if wait_ms:
                    raise hello_rules.too_many_new_sessions(wait_ms)
            name = hello_rules.new_session_name(msg.name, secrets.token_hex(2))
            pid, token = await svc.store.sessions.new_session(name)
        s.pid, s.name = pid, name
        svc.players.setdefault(pid, set()).add(s)
        svc.bus.subscribe(keys.player_channel(pid))
        rids = await svc.store.player_races(pid)
        for rid in rids:
            _now, race = await svc.store.load_race(rid)
            if hello_rules.rejoins(race):
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
            except Exception as exc:
                svc.failed("could not leave the quick-match queue", exc)
        for rid in list(s.races):
            svc.remove_member(s, rid)
        for rid in list(s.spectating):
            await svc.unspectate(s, rid)
        for hook in svc.disconnect_hooks:
            await hook(s)
