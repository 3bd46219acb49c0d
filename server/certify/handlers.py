"""The `hint` and `analysis` requests (docs/protocol.md §3), and the lobby's certified deal."""

from __future__ import annotations

import asyncio
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from protocol import messages as m
from protocol.messages import ErrorCode

from ..core.checks import no_such_race
from ..core.races import RaceError
from ..core.session import Session
from ..handlers.lobby import race_id
from ..handlers.runtime import Runtime
from ..handlers.watch import finished_race
from . import work
from .rules import check_hint
from .service import Busy, Certifier, NoWorker

if TYPE_CHECKING:
    from server.service import Service

#: `retry_ms` of a `solver-busy` reply: a worker busy for longer than the wait
#: is usually free again within a couple of seconds (an analysis is cached by then).
SOLVER_RETRY_MS = 2000


def solver_busy(what: str, waited_s: float) -> RaceError:
    return RaceError(
        ErrorCode.SOLVER_BUSY,
        f"the solver did not finish {what} within {waited_s:g} s: ask again",
        retry_ms=SOLVER_RETRY_MS,
    )


def solver_lost(what: str) -> RaceError:
    """The worker of `what` died under it (killed, the OOM killer): new workers are started."""
    return RaceError(
        ErrorCode.SOLVER_BUSY,
        f"the solver worker of {what} ended unexpectedly: ask again",
        retry_ms=SOLVER_RETRY_MS,
    )


class CertifyHandlers:
    def __init__(self, svc: Runtime, certifier: Certifier) -> None:
        self.svc = svc
        self.certifier = certifier

    async def hint(self, s: Session, msg: m.Hint) -> m.HintData:
        rid = race_id(msg.race)
        store = self.svc.store
        _now, race = await store.load_race(rid)
        if race is None:
            raise no_such_race()
        check_hint(race, s.player)
        pg = (await store.load_player(rid, s.player)).game
        if pg is None:
            raise RaceError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
        wait = self.svc.settings.hint_wait_s
        try:
            # On timeout the search is cancelled: a queued one never runs, a running one
            # finishes unread (hints are never cached).
            async with asyncio.timeout(wait):
                move = await self.certifier.ask(
                    work.hint, pg.game().view_text(), self.svc.settings.hint_nodes
                )
        except NoWorker:
            raise RaceError(ErrorCode.INTERNAL, "this server has no solver worker") from None
        except TimeoutError:
            raise solver_busy("the hint", wait) from None
        except BrokenProcessPool:
            raise solver_lost("the hint") from None
        return m.HintData(rid=msg.rid, race=rid, n=pg.n, move=move)

    async def analysis(self, s: Session, msg: m.Analysis) -> m.AnalysisData:
        rid = race_id(msg.race)
        race, logs = await finished_race(self.svc, s, rid, msg.invite)
        players = [(p.player, p.name, [mv for _at, _h, mv in logs[p.player]]) for p in race.players]
        wait = self.svc.settings.analysis_wait_s
        try:
            # The analysis itself is shielded: it goes on past the wait and caches its
            # result, which a later request reads.
            async with asyncio.timeout(wait):
                out = await self.certifier.analysis(rid, race.game, race.seed, players, asker=s.player)
        except Busy as exc:
            raise RaceError(ErrorCode.SOLVER_BUSY, str(exc), retry_ms=SOLVER_RETRY_MS) from None
        except NoWorker:
            raise RaceError(ErrorCode.INTERNAL, "this server has no solver worker") from None
        except TimeoutError:
            raise solver_busy("the analysis", wait) from None
        except BrokenProcessPool:
            raise solver_lost("the analysis") from None
        return m.AnalysisData(rid=msg.rid, race=rid, players=[m.PlayerAnalysis(**e) for e in out])


def install(service: Service, certifier: Certifier) -> CertifyHandlers:
    h = CertifyHandlers(service, certifier)
    service.handlers.update({m.Hint: h.hint, m.Analysis: h.analysis})
    service.detached.update({m.Hint, m.Analysis})
    service.certified_deal = certifier.deal
    return h
