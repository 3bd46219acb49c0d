"""The rated quick-match (docs/protocol.md §9): the game's rating pool, and seating the groups
formed from it (server/handlers/rated.py routes ``quick`` with ``rated`` and ``unqueue`` here).

A rated ``quick`` puts the player in the game's pool (server/ratings ``Pool``); every process
forms races from it every ``rated_form_ms`` and on each arrival, and seats each group as a
quick race. The entry is the player's: ``unqueue`` from any of their connections takes it out,
and it leaves with the last of the connections that queued for it (each holds it, by its id, on
whichever process). Each rated ``quick`` claims the entry's seat (`rated_hold`) with a token of
its own, which the entry carries (server/ratings/pool.py), and whatever takes the entry out (a
group seated, ``unqueue``, the last close, a revoked session, a stale entry) gives back only the
claims it carried: the same player queueing again while their group is being seated keeps the
seat for the new entry. A player whose login sessions were revoked (``logout``, ``logout_all``,
``password``) leaves the pools once no connection holding the entry queued with a session still
valid (each holds it as "CONN/SESSION"), and a group with such a player is not seated: the others go back to the
pool with their waiting time. A group whose race could not be made goes back too
(server/handlers/seating.py).

No client queues again while it waits, and the pool drops an entry nobody kept alive for its
`stale_ms` (one of a process that died without leaving it: its connections never let go). So
while connections here hold entries, this process keeps each alive, and its seat reserved,
a few times within `stale_ms` (`keep_alive`): a player waits as long as they like, and a dead
process's entries still go stale. A keep-alive makes nothing again: an entry taken out (seated,
left, dropped) stays out, and a seat given back stays given back.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import messages as m
from protocol import rules

from ..core import checks as check
from ..core import races as R
from ..core import rated as rated_rules
from ..core.session import Session
from ..ratings import Accounts, Pool, Ratings
from ..ratings.matchmaking import Waiting
from ..ratings.pending import PendingRaces
from ..ratings.pool import Formed
from ..ratings.seats import PoolSessions
from ..storage import keys
from ..storage.players import new_claim, rated_hold
from . import seating
from .accounts import AccountHandlers

if TYPE_CHECKING:  # pragma: no cover
    from ..service import Service

encode = m.encode

# How often, as a share of the pool's `stale_ms` (every 2 minutes for its 10), this process
# keeps alive the entries its connections hold (`keep_alive`): a round or two late or failed
# (a Redis blip) still leaves a waiting player's entry and its seat in place.
KEEP_ALIVE_SHARE = 5
# Never more often than this, however short `stale_ms` (tests make it so).
KEEP_ALIVE_MIN_S = 0.05


@dataclass(eq=False, slots=True)
class Held:
    """A connection's hold on the player's entry in a game's pool: the login session it queued
    with. A new one for each `quick`, so that a record replaced meanwhile is told from the one a
    keep-alive round looked at (`_keep`)."""

    session: str


class RatedQueue:
    def __init__(
        self,
        svc: Service,
        accounts: Accounts,
        ratings: Ratings,
        pool: Pool,
        sessions: PoolSessions,
        identity: AccountHandlers,
        pending: PendingRaces,
    ) -> None:
        self.svc = svc
        self.accounts = accounts
        self.ratings = ratings
        self.pool = pool
        self.sessions = sessions
        self.identity = identity
        self.pending = pending
        # Per connection: the games whose pool entry it holds, each with the login session it joined with.
        self.waiting: weakref.WeakKeyDictionary[Session, dict[str, Held]] = weakref.WeakKeyDictionary()
        # Keeps those entries alive while there are any (`keep_alive`, a task of the service:
        # its stop ends it).
        self.keeper: asyncio.Task[None] | None = None

    def install(self) -> None:
        self.svc.disconnect_hooks.append(self.on_disconnect)
        self.identity.revoke_hooks.append(self.on_revoked)

    async def quick(self, s: Session, msg: m.Quick) -> None:
        li = await self.identity.account_of(s)
        gdef = check.game(msg.game)
        seats = check.seats(msg.seats, m.DEFAULT_SEATS, self.svc.settings.max_seats)
        # The entry holds a seat while it waits, as a casual one (handlers/quick_match.py `quick`),
        # reserved and counted in one step; one per game (the pool has one entry per game and
        # player), for the pool's `stale_ms`, renewed while this process keeps the entry alive.
        # Claimed with a token of this request's, which the entry carries (module docstring).
        hold, claim = rated_hold(gdef.id), new_claim()
        await self.svc.lobby.reserve_seat(li.player, hold, self.pool.stale_ms, renew=True, claim=claim)
        try:
            mu = (await self.ratings.rating(gdef.id, li.player)).mu
            # Noted before the join: a close from here on lets go of the hold, and this process
            # keeps the entry alive meanwhile.
            self.waiting.setdefault(s, {})[gdef.id] = Held(li.session)
            if self.keeper is None:
                self.keeper = self.svc.spawn(self.keep_alive())
            await self.pool.join(
                gdef.id, li.player, mu, seats, self._holder(s, li.session), claim, li.session
            )
        except BaseException:
            await self.svc.store.drop_claims(li.player, hold, [claim])  # stays if another entry claims it
            raise
        s.send(encode(m.Queued(rid=msg.rid, game=gdef.id, seats=seats, rated=True)))
        self.svc.spawn(self.form(gdef.id))

    async def unqueue(self, s: Session, msg: m.Unqueue) -> None:
        """The entry is the player's, not this connection's: it leaves whichever of the
        player's connections (here or elsewhere) queued, so that the `ok` holds; its seat with
        the claims it carried (a rated `quick` of the player's landing at once may have claimed
        it for an entry of its own)."""
        if msg.game in rules.GAMES:
            pid = s.player
            for c in self.svc.players.get(pid, ()):
                self.waiting.get(c, {}).pop(msg.game, None)
            claims = await self.pool.leave(msg.game, pid)  # its session record with it
            # No entry: the seat goes if nothing claims it.
            await self.svc.store.drop_claims(pid, rated_hold(msg.game), claims or ())

    async def on_disconnect(self, s: Session) -> None:
        games = self.waiting.pop(s, {})
        if not games or s.pid is None:
            return
        for game, held in games.items():
            try:
                # The entry stays while another connection of the player that queued for it is
                # open, here or on another process; its seat goes with it.
                claims = await self.pool.release(game, s.pid, self._holder(s, held.session))
                if claims is not None:
                    await self._left(game, s.pid, claims)
            except Exception as exc:
                self.svc.failed("could not leave the rated pool", exc)

    async def on_revoked(self, pid: str) -> None:
        """Sessions of `pid` were revoked: the connections that queued with one let go of the
        entry (here at once; elsewhere their close, which the revocation brings, does), and
        each pool whose entry no connection with a live session holds any more is left (its
        seat with the claims it carried, as `unqueue`). Another device that queued with a token
        still valid keeps the player's entry (docs/protocol.md §9)."""
        store = self.svc.store
        for c in list(self.svc.players.get(pid, ())):
            games = self.waiting.get(c, {})
            for game, held in list(games.items()):
                if not await self.accounts.session_alive(pid, held.session):
                    del games[game]
                    claims = await self.pool.release(game, pid, self._holder(c, held.session))
                    if claims is not None:
                        await store.drop_claims(pid, rated_hold(game), claims)
        for game in rules.GAMES:
            if not await self.pool.has(game, pid):
                continue
            entry_session = await self.sessions.get(game, pid)
            if not await self._live_session(pid, entry_session, await self.pool.holders(game, pid)):
                claims = await self.pool.leave(game, pid)
                if claims is not None:
                    await store.drop_claims(pid, rated_hold(game), claims)

    async def keep_alive(self) -> None:
        """While connections here hold pool entries: every `stale_ms` / KEEP_ALIVE_SHARE, keep
        each of them alive (module docstring), once per entry whoever of its player's
        connections here holds it. A failure is logged and the next round comes as usual."""
        try:
            while any(self.waiting.values()):
                await asyncio.sleep(max(self.pool.stale_ms / KEEP_ALIVE_SHARE / 1000, KEEP_ALIVE_MIN_S))
                entries: dict[tuple[str, str], list[tuple[Session, Held]]] = {}
                for c, games in list(self.waiting.items()):
                    for game, held in games.items():
                        if c.pid is not None:
                            entries.setdefault((game, c.pid), []).append((c, held))
                for (game, pid), holds in entries.items():
                    try:
                        await self._keep(game, pid, holds)
                    except Exception as exc:
                        self.svc.failed("could not keep a rated pool entry alive", exc)
        finally:
            self.keeper = None

    async def _keep(self, game: str, pid: str, holds: list[tuple[Session, Held]]) -> None:
        """Keep `pid`'s entry in `game`'s pool alive for the connections here that hold it
        (`holds`), and its seat reserved as long again; else, once it is out for good, those
        connections wait for nothing any more."""
        hold = rated_hold(game)
        if await self.pool.keep(game, pid, [self._holder(c, h.session) for c, h in holds]):
            # After the entry, and only extended (a limit of 0 takes no seat): the seating of
            # its group, landing in between, gives the seat back, and it stays given back.
            await self.svc.store.reserve_seat(pid, hold, 0, self.pool.stale_ms, renew=True)
            return
        # Not held by them: seated, left or dropped, here or on another process, or taken out
        # for a seating that may yet put it back with its holders (handlers/seating.py) while
        # the seat is still claimed. So the records go only once the seat is given back, and
        # only as they were: a `quick` on the connection meanwhile made a new one.
        if hold in await self.svc.store.seat_ids(pid):
            return
        for c, h in holds:
            games = self.waiting.get(c, {})
            if games.get(game) is h:
                del games[game]

    def _holder(self, s: Session, session: str) -> str:
        """How the connection `s`, logged in with `session`, holds a pool entry: its id, then
        that session, so that a revocation tells the holders that still stand (`on_revoked`)."""
        return f"{self.identity.conn_id(s)}/{session}"

    async def _live_session(self, pid: str, session: str, holders: tuple[str, ...]) -> str:
        """A login session of `pid`'s entry still valid: the entry's own (the last queuer's),
        else one a holder queued with; "" if every one was revoked."""
        for candidate in (session, *(h.partition("/")[2] for h in holders)):
            if candidate and await self.accounts.session_alive(pid, candidate):
                return candidate
        return ""

    async def form(self, game: str) -> None:
        stale: dict[str, tuple[str, ...]] = {}  # entries older than the pool's stale_ms, dropped
        groups = await self.pool.form(game, stale)
        for pid, claims in stale.items():
            await self._left(game, pid, claims)
        for group in groups:
            await self.seat(game, group)

    async def _left(self, game: str, pid: str, claims: tuple[str, ...]) -> None:
        """`pid`'s entry left the pool unseated (its login session's record with it): its seat
        goes with the `claims` it carried."""
        await self.svc.store.drop_claims(pid, rated_hold(game), claims)

    async def seat(self, game: str, group: Formed) -> None:
        """Seat a formed group in a new rated quick race (as the lobby seats a quick group).
        Each entry's claims on its seat (`rated_hold`) end once the race's seat replaces it.
        If seating fails (server/handlers/seating.py) before the race was stored, the group
        goes back to the pool, each entry as it was (the next round forms it again); after,
        the race's seating is finished; if Redis cannot tell, the entries' seats are given
        back (out of the pool for good: no entry carries them). One group's failure is
        logged, not raised: the round's other groups are seated all the same."""
        back: set[str] = set()  # put back in the pool (or given back): nothing more to do
        rid, hold, claims = keys.new_race_id(), rated_hold(game), group.claims()
        try:
            try:
                await self._seat(game, group, back, rid)
            except Exception as exc:
                self.svc.failed(f"could not seat a rated group in race {rid}", exc)
                rest = [w for w in group.members if w.player not in back]
                pids = [w.player for w in rest]
                outcome = await seating.after_failure(self.svc.lobby, rid, pids, hold, claims)
                back.update(pids)  # seated, given back, or put back below
                if outcome is seating.Outcome.STORED:
                    for pid in pids:
                        self._taken_from(game, pid, group.taken[pid].holders)
                elif outcome is seating.Outcome.NOT_STORED:
                    try:
                        await self._put_back(game, rest, group)
                    except Exception as again:
                        self.svc.failed("could not put a rated group back in the pool", again)
                        await seating.give_back(self.svc.lobby, pids, hold, claims)
        except BaseException:
            # Cancelled (a shutdown) at any point before the group was seated or put back: the
            # entries are gone, and their seats.
            unseated = [w.player for w in group.members if w.player not in back]
            await seating.give_back(self.svc.lobby, unseated, hold, claims)
            raise

    async def _put_back(self, game: str, members: list[Waiting], formed: Formed) -> None:
        """Put `members` of the `formed` group back in the pool; those who left it meanwhile
        (pool.restore) leave for good, their seats with the claims their entries carried."""
        left = await self.pool.restore(game, members, formed.taken)
        for pid, claims in left.items():
            self._taken_from(game, pid, formed.taken[pid].holders)
            await self._left(game, pid, claims)

    async def _seat(self, game: str, formed: Formed, restored: set[str], rid: str) -> None:
        svc = self.svc
        gdef = check.game(game)
        group = formed.members
        pids = [w.player for w in group]
        # Taken with the entries: each one's session, or a holder's if that one was revoked
        # (the device that queued last logged out, another that queued stays).
        sessions = {
            p: await self._live_session(p, formed.taken[p].session, formed.taken[p].holders) for p in pids
        }
        alive = [bool(sessions[pid]) for pid in pids]
        if not all(alive):
            # Someone's login session was revoked while waiting: they are dropped, the others go
            # back, with their sessions (a group formed from a restored entry needs its session).
            back = [w for w, ok in zip(group, alive, strict=True) if ok]
            await self._put_back(game, back, formed)
            restored.update(w.player for w in back)
            dropped = [w.player for w, ok in zip(group, alive, strict=True) if not ok]
            for pid in dropped:  # their holders left the pool with their entries
                self._taken_from(game, pid, formed.taken[pid].holders)
                await svc.store.drop_claims(pid, rated_hold(game), formed.taken[pid].claims)
            if back:
                svc.spawn(self.form(game))
            return
        names = []
        for pid in pids:
            acct = await self.accounts.account(pid)
            names.append(acct.name if acct is not None else "player")
        seed, proof = await svc.lobby.new_deal(gdef.id, None)  # certified by default, as any quick race
        now = await svc.store.time_ms()
        race = R.new_quick_race(
            race=rid,
            game=gdef.id,
            total=gdef.total,
            time_limit_s=svc.settings.time_limit_s,
            players=list(zip(pids, names, strict=True)),
            accounts=pids,  # a rated pool holds accounts only
            now=now,
            countdown_ms=svc.settings.countdown_ms,
            seed=seed,
        )
        race.rated = True
        race.certified, race.proof = proof is not None, " ".join(proof or ())
        for p in race.players:
            p.session = sessions.get(p.player, "")
        await self.pending.add(race.game, race.race, rated_rules.check_at(race, now))
        await svc.lobby.publish_new_race(None, None, race, now, rated_hold(game), formed.claims())
        # Seated: the connections that held the entries hold nothing now (their holder sets left
        # the pool with the entries: a new entry of a player's, made meanwhile, keeps its own).
        for pid in pids:
            self._taken_from(game, pid, formed.taken[pid].holders)
        notice = encode({"t": "seated", "race": race.race})
        for pid in pids:
            await svc.store.publish_player(pid, notice)

    def _taken_from(self, game: str, pid: str, holders: tuple[str, ...]) -> None:
        """`pid`'s entry in `game`'s pool was taken out, with its `holders`: those of the player's
        connections here wait for nothing now. Not the others: one that queued again since holds
        the new entry, and its close must still let go of it."""
        for c in self.svc.players.get(pid, ()):
            games = self.waiting.get(c, {})
            if game in games and self._holder(c, games[game].session) in holders:
                del games[game]
