"""The lobby (docs/protocol.md §3): create, join, leave, ready, start.

Every change is a pure function of server/core/races.py applied to the
loaded race and committed compare-and-set (`mutate`, writing what
core/lobby.py's `lobby_commit` says): several processes may serve the same
race, and a conflict just reloads and retries.

Casual quick-match (its queue, and the seating of a matched group) is
server/handlers/quick_match.py: it takes its entries' seats with `reserve_seat` and makes
its races with `new_deal` and `publish_new_race`, as the rated handlers do.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode, RaceStatus

from ..config import Settings
from ..core import checks as check
from ..core import presence, privacy
from ..core import races as R
from ..core.lobby import CAS_ATTEMPTS, lobby_commit, retry_delay_s
from ..core.races import RaceError
from ..core.session import Session
from ..retries import until_answered
from ..storage import Conflict, keys
from ..storage.players import RESERVE_MS
from ..storage.race_records import LATE_WITHIN_S
from .lobby_limit import PublicLobbyLimit
from .runtime import Runtime

encode = m.encode
log = logging.getLogger(__name__)


def race_id(rid: str) -> str:
    """A race id as the client sent it, if it can be one of ours."""
    if not keys.valid_race_id(rid):
        raise check.no_such_race()
    return rid


def ttl(st: Settings, race: R.Race, now: int) -> int:
    """How long the race's keys live after a change (core/races.py `ttl_ms`)."""
    return R.ttl_ms(race, now, st.lobby_ttl_s, st.finished_ttl_s)


def snapshot_reply(msg: Any, race: R.Race, viewer: str | None = None) -> m.RaceSnapshot:
    """The `race` reply to a request; a player of a private race also gets its invite."""
    invite = privacy.invite_for(race, viewer) if viewer is not None else None
    return m.RaceSnapshot(rid=getattr(msg, "rid", None), invite=invite, **R.snapshot(race))


def _not_sealed(race: R.Race) -> R.Race:
    """A sealed race (a daily attempt) is started and left by the server alone: only the race
    bound to the attempt is ever played (server/daily/service.py `start`)."""
    if race.sealed:
        raise RaceError(
            ErrorCode.PRIVATE_RACE,
            "a daily attempt's race is run by the server: daily_start starts or resumes it",
        )
    return race


def new_invite() -> str:
    """A private race's secret: 128 random bits, URL-safe (it travels in links)."""
    return secrets.token_urlsafe(16)


class SeatTaken(RaceError):
    """`internal`, for a create or join that failed after its race was stored with the player
    seated (`Lobby.taking_seat`): the seat is kept, and the error says so."""

    def __init__(self, rid: str) -> None:
        super().__init__(
            ErrorCode.INTERNAL,
            f"server fault after your seat in race {rid} was taken: the seat is yours"
            " (`resync` it; a new hello's `welcome` lists it)",
        )
        self.race = rid


class Lobby:
    def __init__(self, svc: Runtime, limit_exempt: Callable[[str], bool]) -> None:
        self.svc = svc
        #: count a public lobby about to be created against its address, or refuse it
        self.public_lobby_limit = PublicLobbyLimit(svc, limit_exempt)

    async def reserve_seat(
        self, pid: str, seat: str, ms: int = RESERVE_MS, *, renew: bool = False, claim: str = ""
    ) -> bool:
        """Count `pid`'s seats and take `seat` (a race id, or a queue entry's `quick_hold` or
        `rated_hold`) in one step in Redis, for all processes (storage/seats.lua): of several
        requests at once, never more pass than MAX_RACES_PER_PLAYER allows. `too-many-races`
        if the player holds that many already. True if reserved (the caller settles or gives
        it back), False if `seat` was held already (nothing to give back; `renew`: a queue
        entry's seat, queued again, is reserved for `ms` from now all the same). `claim`: the
        token with which a queueing request claims its entry's seat (server/handlers/quick_match.py)."""
        most = self.svc.settings.max_races_per_player
        status, held = await self.svc.store.reserve_seat(pid, seat, most, ms, renew=renew, claim=claim)
        if status < 0:
            check.seat_limit(max(held, most), most)  # raises too-many-races
        return status > 0

    @asynccontextmanager
    async def taking_seat(self, pid: str, rid: str) -> AsyncIterator[str]:
        """The seat of `pid` in the race `rid`, reserved (`reserve_seat`) for the body, which
        creates or joins the race: settled if it returns. The body gets this attempt's token,
        which a join's commits carry (`mutate`'s `attempt`). If it raises (cancelled too), the
        seat is given back only if the race does not hold the player, so that a failed create
        or join costs no seat, and one that failed after its commit seated the player (a
        notice, `keep`, the index or the timer failing on a Redis blip, a shutdown) keeps it:
        `welcome` lists the race and it counts. That error says so (`internal`, not "no
        effect"). Whether the race holds the player is read again: a commit whose reply was
        lost may have been applied (and one not yet applied never will be once that read found
        no race, or the race without the player: `_seated_after_failure`); if that read fails too, the reservation is left to lapse
        at its deadline, and the seats' prune then keeps it only if the race holds the player."""
        reserved = await self.reserve_seat(pid, rid)
        attempt = secrets.token_hex(8)
        try:
            yield attempt
        except BaseException as exc:
            if reserved and await self._seated_after_failure(pid, rid, attempt):
                if isinstance(exc, Exception) and not isinstance(exc, RaceError):
                    self.svc.failed(f"a request failed after {pid} took a seat in {rid}", exc)
                    raise SeatTaken(rid) from exc
            raise
        if reserved:
            await self.svc.store.settle_seats(pid, rid)

    async def _seated_after_failure(self, pid: str, rid: str, attempt: str) -> bool:
        """After a create or join of `rid` failed: settle `pid`'s reserved seat and say True if
        the race holds the player (committed before the failure), else give the seat back. A
        race not stored is given up as it is read (`load_race` with `void`), and so is the join
        `attempt` of a race stored: its creation or join commit, sent on a connection that
        failed, may reach Redis later, and would seat the player, told "no effect" and its seat
        given back, in a race they know nothing of (or had given up joining). A new join of the
        race is a new attempt: it is not refused. If Redis cannot be read, the same read is
        made again in the background until it answers (`until_answered`, within LATE_WITHIN_S:
        the seat then taken only if such a commit arrived first, as the prune finds it)."""
        store = self.svc.store
        try:
            _now, race = await store.load_race(rid, void=True, attempt=attempt)
        except Exception as exc:  # unknown: the reservation lapses, then the prune decides
            self.svc.failed(f"could not look up {rid} after a failed create or join", exc)
            self.svc.spawn(
                until_answered(
                    lambda: store.load_race(rid, void=True, attempt=attempt),
                    LATE_WITHIN_S,
                    f"the failed create or join of {rid} by {pid} could not be given up: Redis never answered",
                    log,
                )
            )
            return False
        if race is None or race.seat_of(pid) is None:
            try:
                await store.release_seats(pid, rid)
            except Exception as exc:  # the reservation lapses, then the prune drops the seat
                self.svc.failed(f"could not give back the seat of {pid} in {rid}", exc)
            return False
        try:
            await store.settle_seats(pid, rid)
        except Exception as exc:  # harmless: the reservation lapses, the prune keeps the seat
            self.svc.failed(f"could not settle the seat of {pid} in {rid}", exc)
        return True

    async def mutate(self, rid: str, change: Callable[[R.Race, int], R.Race], attempt: str = "") -> R.Race:
        """Load, change with a pure function of core/races.py, compare-and-set; retry on conflict.
        `attempt`: a join's token (`taking_seat`), carried by its commits (`Store.commit`)."""
        store = self.svc.store
        st = self.svc.settings
        for tried in range(CAS_ATTEMPTS):
            now, race = await store.load_race(rid)
            if race is None:
                raise check.no_such_race()
            plan = lobby_commit(race, change(race, now), now, st.lobby_ttl_s, st.finished_ttl_s)
            if plan is None:
                return race
            if plan.timer is not None:
                await store.schedule_ahead(rid, plan.timer)
            try:
                await store.commit(race.ver, plan.race, plan.event, ttl_ms=plan.ttl_ms, attempt=attempt)
            except Conflict:
                await asyncio.sleep(retry_delay_s(tried))
                continue
            if plan.timer is not None:
                await store.schedule(rid, plan.timer)
            return plan.race
        raise RaceError(ErrorCode.INTERNAL, "the race is too busy, try again")

    def build_race(
        self,
        s: Session,
        gdef: rules.GameDef,
        seats: int,
        time_limit_s: int,
        private: bool,
        seed: str,
        now: int,
        rid: str | None = None,
    ) -> R.Race:
        return R.new_race(
            race=rid or keys.new_race_id(),
            game=gdef.id,
            total=gdef.total,
            seats=seats,
            time_limit_s=time_limit_s,
            private=private,
            host=s.player,
            host_name=s.name,
            host_account=s.account,
            now=now,
            seed=seed,
        )

    async def new_deal(self, game: str, certified: bool | None) -> tuple[str, list[str] | None]:
        """A seed and, from the certified pool (server/certify), its winning line;
        `certified` None: the server's default. Never waits on the solver."""
        if self.svc.certified_deal is not None:
            entry = await self.svc.certified_deal(game, certified)
            if entry is not None:
                return entry
        return self.svc.seed_factory(), None

    async def create(self, s: Session, msg: m.Create) -> m.RaceSnapshot:
        gdef = check.game(msg.game)
        st = self.svc.settings
        seats = check.seats(msg.seats, m.DEFAULT_SEATS, st.max_seats)
        time_limit_s = check.time_limit(
            msg.time_limit_s, st.time_limit_s, st.time_limit_min_s, st.time_limit_max_s
        )
        rid = keys.new_race_id()
        async with self.taking_seat(s.player, rid):
            if not msg.private:
                await self.public_lobby_limit(s, rid)
            seed, proof = await self.new_deal(gdef.id, bool(msg.winnable))
            now = await self.svc.store.time_ms()
            race = self.build_race(s, gdef, seats, time_limit_s, bool(msg.private), seed, now, rid)
            race.certified, race.proof, race.hints = (
                proof is not None,
                " ".join(proof or ()),
                msg.hints is not False,
            )
            if race.private:
                race.invite = new_invite()
            return await self.publish_new_race(s, msg, race, now)

    async def create_solo(
        self,
        s: Session,
        game: str,
        seed: str,
        time_limit_s: int,
        *,
        sealed: bool = False,
        proof: Sequence[str] | None = None,
    ) -> R.Race:
        """A private one-seat race of `s`'s player on a given seed: a daily challenge
        attempt (server/daily). It waits, not ready, until `start_solo` (once the daily has
        bound it to the attempt) or `abandon_solo` (an orphan); its player cannot ready,
        start or leave a sealed race. `proof`: the deal's winning line, when the solver
        certified it. No reply is sent here. If it fails after its race was stored, the race
        is abandoned here: the daily never learns its id, and would leave it an orphan holding
        the player's seat until its lobby expires."""
        gdef = check.game(game)
        rid = keys.new_race_id()
        try:
            async with self.taking_seat(s.player, rid):
                now = await self.svc.store.time_ms()
                race = self.build_race(s, gdef, 1, time_limit_s, True, seed, now, rid)
                race.sealed = sealed
                race.certified, race.proof = proof is not None, " ".join(proof or ())
                await self.publish_new_race(s, None, race, now)
        except SeatTaken as exc:  # stored with the player seated
            try:
                await self.abandon_solo(rid, s.player)
            except Exception as again:  # it expires with its lobby, and its seat then
                self.svc.failed(f"could not abandon the failed solo race {rid}", again)
                raise exc from None
            raise RaceError(ErrorCode.INTERNAL, "server fault; the race was not made") from exc
        return race

    async def start_solo(self, rid: str, pid: str) -> None:
        """Count down a race of `create_solo` (a no-op once it counts down, runs or is over:
        a resumed attempt)."""
        cd = self.svc.settings.countdown_ms

        def ready(r: R.Race, now: int) -> R.Race:
            return R.set_ready(r, pid, True, now, cd) if r.status == RaceStatus.LOBBY else r

        await self.mutate(rid, ready)

    async def abandon_solo(self, rid: str, pid: str) -> None:
        """Take `pid` out of a race of `create_solo` that never started (a daily orphan): it
        has no player left, and expires with its lobby."""
        await self._leave(pid, rid)

    def part(self, pid: str, race: R.Race, asking: Session | None = None) -> None:
        """`pid`'s connections here leave the room of `race` (as committed without them). Each
        but `asking` (its reply says so) is first sent that snapshot, unless the room forwarded
        it already: its published copy may reach this process only after they left (a bus
        behind on a loaded machine; a cluster's PUBLISH crosses nodes), and a bot (a seat given
        back) or another tab of the player would never learn that the seat is gone."""
        rid = race.race
        room = self.svc.local.get(rid)
        frame = b""
        for other in list(self.svc.players.get(pid, ())):
            if other is not asking and rid in other.races and room is not None and room.sent < race.ver:
                frame = frame or encode(m.RaceSnapshot(**R.snapshot(race)))
                other.send(frame)
            self.svc.remove_member(other, rid)

    async def attach(self, s: Session, msg: Any, rid: str) -> m.RaceSnapshot:
        """Reply with the snapshot of a race where `s`'s player sits, and deliver its
        events to `s` (a resumed daily attempt, maybe from another connection)."""
        _now, race = await self.svc.store.load_race(race_id(rid))
        if race is None:
            raise check.no_such_race()
        if race.seat_of(s.player) is None:
            raise check.not_in_race()
        if race.status != RaceStatus.FINISHED and rid not in s.races:
            self.svc.add_member(s, race)
        return snapshot_reply(msg, race, s.player)

    async def publish_new_race(
        self,
        s: Session | None,
        msg: Any,
        race: R.Race,
        now: int,
        hold: str = "",
        claims: Mapping[str, Sequence[str]] | None = None,
    ) -> m.RaceSnapshot:
        """Store a new race and seat its players. `hold`: a seat its players reserved for it
        (a quick-match entry's, quick_match.py `seat_group`), whose `claims` (by player: those their entries
        carried) end once the race's seats replace it: the seat goes unless a new entry
        claimed it meanwhile."""
        store = self.svc.store
        # Seats and timer first: a process dying after the commit must not leave a race that
        # counts down with no timer (it would never start) or players who cannot resume it.
        for p in race.players:
            await store.hold_seat(p.player, race.race)
        timer = self.new_race_timer(race, now)
        if timer is not None:
            await store.schedule_ahead(race.race, timer)
        await store.commit(
            0, race, encode(m.RaceSnapshot(**R.snapshot(race))), ttl_ms=ttl(self.svc.settings, race, now)
        )
        self.svc.metrics.races_created += 1
        if s is not None:  # a member before its seat's notice: the notice then finds it one
            self.svc.add_member(s, race)
        await self.seat_new_race(race, timer, hold, claims)
        if s is not None:
            return snapshot_reply(msg, race, s.player)
        return snapshot_reply(msg, race)

    def new_race_timer(self, race: R.Race, now: int) -> int | None:
        """When a new race's timer fires: its countdown's end, else its away clock
        (handlers/presence.py) if someone waits in it."""
        timer = R.next_timer(race)
        if timer is None and presence.watched(race):
            timer = now + self.svc.settings.lobby_away_ms
        return timer

    async def seat_new_race(
        self,
        race: R.Race,
        timer: int | None,
        hold: str = "",
        claims: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """What `publish_new_race` does after the commit: the race listed, the queue entries'
        seats (`hold`) end, each player is seated (a `seated` notice) and its timer set.
        Each step may be run again (server/handlers/seating.py finishes a group's race with it)."""
        store = self.svc.store
        if not race.private:
            # Listed before any player is told of it: a matched player's client that lists the
            # races as soon as its own is sent finds it there (docs/protocol.md §3 `quick`).
            await store.index(race.race, race.created)
        for p in race.players if hold else ():  # before the seats' notices: counted once
            await store.drop_claims(p.player, hold, (claims or {}).get(p.player, ()))
        for p in race.players:
            await store.add_seat(p.player, race.race)
        if timer is not None:  # again: a sweep before the commit found no race and dropped it
            await store.schedule(race.race, timer)

    async def join(self, s: Session, msg: m.Join) -> m.RaceSnapshot:
        rid = race_id(msg.race)
        pid = s.player
        _now, race = await self.svc.store.load_race(rid)
        if race is None:
            raise check.no_such_race()
        privacy.check_join(race, pid, msg.invite)
        if race.seat_of(pid) is not None:  # a no-op join (core/lobby.py `join`): no new seat
            race = await self._join(s, rid)
        else:
            async with self.taking_seat(pid, rid) as attempt:
                race = await self._join(s, rid, attempt)
        return snapshot_reply(msg, race, pid)

    async def _join(self, s: Session, rid: str, attempt: str = "") -> R.Race:
        pid = s.player
        race = await self.mutate(rid, lambda r, now: R.join(r, pid, s.name, s.account), attempt)
        self.svc.add_member(s, race)  # a member before its seat's notice: the notice then finds it one
        await self.svc.store.add_seat(pid, rid)
        if presence.watched(race) and pid in presence.people(race):  # someone waits here now
            await self.svc.store.clear_away(rid)
        return race

    async def leave(self, s: Session, msg: m.Leave) -> m.RaceSnapshot:
        pid = s.player
        race = await self._leave(pid, race_id(msg.race), by_player=True, asking=s)
        return snapshot_reply(msg, race, pid)

    async def _leave(
        self, pid: str, rid: str, by_player: bool = False, asking: Session | None = None
    ) -> R.Race:
        race = await self.mutate(rid, lambda r, now: R.leave(_not_sealed(r) if by_player else r, pid))
        await self.svc.store.remove_seat(pid, rid)
        self.part(pid, race, asking)
        if not race.players:
            await self.svc.store.index(rid, None)
        return race

    async def ready(self, s: Session, msg: m.Ready) -> m.RaceSnapshot:
        rid = race_id(msg.race)
        cd = self.svc.settings.countdown_ms
        pid = s.player
        race = await self.mutate(
            rid, lambda r, now: R.set_ready(_not_sealed(r), pid, msg.ready is not False, now, cd)
        )
        return snapshot_reply(msg, race, pid)

    async def host_start(self, s: Session, msg: m.Start) -> m.RaceSnapshot:
        rid = race_id(msg.race)
        cd = self.svc.settings.countdown_ms
        pid = s.player
        race = await self.mutate(rid, lambda r, now: R.host_start(_not_sealed(r), pid, now, cd))
        return snapshot_reply(msg, race, pid)
