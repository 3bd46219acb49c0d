"""Casual quick-match (docs/protocol.md §3): the queue (`quick`, `unqueue`, a closing
connection's entries) and the seating of a matched group in a new race (`seat_group`, which
an arena's pairings use too: server/handlers/arena_loop.py).

A quick-match entry is the player's, not the connection's (as the rated
pool's, server/handlers/rated_queue.py): each connection that queued holds it (its
``conn_id``, in Redis next to the queue, server/storage/quick.lua); ``unqueue``
from any of the player's connections, on any process, takes it out with its
holders; it leaves with the last holder to close; a group taken out of the
queue takes its holders with it. ``Session.quick`` records what a connection
queued for, so that its close lets go: a record may outlive its entry (seated
or unqueued elsewhere), which is harmless, since letting go of an entry one no
longer holds removes it only if nobody holds it.

A process killed outright (kill -9) closes nothing: its connections never let go. So a
holder is named with its process ("PROC/CONN"), and each process marks itself alive in every
queue where its connections hold entries, every second (`keep_alive`; quick.lua): a group is
formed only of entries with a holder alive, so that a dead process's entries seat nobody
QUICK_LIVE_MS after it died, and they leave the queue QUICK_DROP_MS later (a process that only
stalled finds its entries where they were). Their player's bot fallback (server/handlers/bots.py)
went with the process: a player who comes back and wants a race queues again, as after any
lost connection, and the process that takes that `quick` arms the fallback.

The entry's seat (`quick_hold`) is claimed by each `quick` with a token of its own, which
the entry carries (storage/seats.lua, quick.lua): whatever takes an entry out (a seated
group, `unqueue`, the last holder's close) gives back only the claims it carried. So the
same player queueing again while their group is being seated (the seat still held when
their `quick` counts it, the group taken out before their push) keeps the seat for the new
entry: it goes with the last claim, never under an entry that still waits.

A seated group's race is made as the lobby makes every race (server/handlers/lobby.py: its
seat count, its deal, `publish_new_race`); this module adds the queue and the entries' seats.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from protocol import messages as m
from protocol import rules

from ..core import checks as check
from ..core import races as R
from ..core.gap_fill import retry_delay_s
from ..core.session import Session
from ..storage import keys
from ..storage.players import QUICK_TTL_S, QuickEntry, new_claim, quick_hold
from . import seating
from .lobby import Lobby
from .runtime import Runtime

encode = m.encode

# Every size a quick-match queue may have on any process (whatever its MAX_SEATS): `unqueue` leaves all.
QUICK_SIZES = range(m.MIN_QUICK_SEATS, m.MAX_SEATS + 1)
# Tries at seating a matched group before it goes back to its queue (`seat_queued`).
SEAT_ATTEMPTS = 3
# After a group went back to its queue, a full group still waiting there is seated this long
# after (`form_again`), though nobody else arrives: a put-back can leave one waiting.
FORM_AGAIN_S = 5.0
# How often a process renews its marks in the queues where its connections hold entries: well
# within their lifetime (QUICK_LIVE_MS), so that a slow round or two do not let them lapse.
KEEP_ALIVE_S = 1.0


class QuickMatch:
    def __init__(self, svc: Runtime, lobby: Lobby) -> None:
        self.svc = svc
        self.lobby = lobby
        svc.disconnect_hooks.append(self.on_disconnect)
        # The connections here that queued, by queue (game, seats): this process marks itself
        # alive in those queues while they hold entries there (`keep_alive`, a task of the
        # service: its stop ends it).
        self.holding: dict[tuple[str, int], set[Session]] = {}
        self.keeper: asyncio.Task[None] | None = None

    def holder(self, s: Session) -> str:
        """How the connection `s` is named among an entry's holders: its process, then its id."""
        return f"{self.svc.store.sessions.proc}/{s.conn_id}"

    async def quick(self, s: Session, msg: m.Quick) -> None:
        svc = self.svc
        gdef = check.game(msg.game)
        seats = check.seats(msg.seats, m.DEFAULT_SEATS, svc.settings.max_seats)
        pid = s.player
        # The entry holds a seat while it waits (module docstring), reserved and counted in one
        # step: queued on several connections at once, never more than the limit pass.
        hold, claim = quick_hold(gdef.id, seats), new_claim()
        await self.lobby.reserve_seat(pid, hold, QUICK_TTL_S * 1000, renew=True, claim=claim)
        # Noted before the push: whatever becomes of it, this connection's close lets go of its
        # hold, and this process keeps its mark alive in the queue meanwhile.
        s.quick.add((gdef.id, seats))
        self.holding.setdefault((gdef.id, seats), set()).add(s)
        if self.keeper is None:
            self.keeper = svc.spawn(self.keep_alive())
        try:
            group = await svc.store.quick_push(gdef.id, seats, pid, self.holder(s), claim)
        except BaseException:
            await svc.store.drop_claims(pid, hold, [claim])  # the seat stays if another entry claims it
            raise
        s.send(encode(m.Queued(rid=msg.rid, game=gdef.id, seats=seats)))
        if not group:
            return
        # This process completed a group (taken out with its holders): it seats everyone in a new
        # public race. Only this connection's record goes, once seated: another of the player's may
        # be queueing for the same size again right now, and a stale record is harmless (module
        # docstring); a group put back is held by this connection again. A group taken out need
        # not hold this player: one put back can leave `seats` or more waiting ahead of them,
        # and then this connection's entry still waits.
        if await self.seat_queued(gdef.id, seats, group) and pid in group:
            s.quick.discard((gdef.id, seats))

    async def seat_queued(self, game: str, seats: int, taken: dict[str, QuickEntry]) -> bool:
        """Seat a group that `quick_push` took out of the queue of (`game`, `seats`) in a new
        public race. A failure that stored no race (server/handlers/seating.py) is tried again,
        SEAT_ATTEMPTS times in all, each with a new race; then the group goes back to the head
        of its queue, each entry with what it carried: nobody loses their place, and the next
        arrival forms a group again, or `form_again` does. One that stored its race is finished (the players sit in
        it); one Redis cannot tell gives the entries' seats back and raises. True if seated."""
        hold, group = quick_hold(game, seats), list(taken)
        claims = {p: entry.claims for p, entry in taken.items()}
        rid = ""
        try:
            for attempt in range(SEAT_ATTEMPTS):
                rid = keys.new_race_id()
                try:
                    await self._seat_group(game, group, self.svc.settings.time_limit_s, rid, "", hold, claims)
                    break
                except Exception as exc:
                    self.svc.failed(f"could not seat a quick-match group in race {rid}", exc)
                    outcome = await seating.after_failure(self.lobby, rid, group, hold, claims)
                    if outcome is seating.Outcome.STORED:
                        break
                    if outcome is seating.Outcome.UNKNOWN:  # its seats given back
                        group = []
                        raise
                if attempt + 1 < SEAT_ATTEMPTS:
                    await asyncio.sleep(retry_delay_s(attempt))
            else:
                left = await self.svc.store.quick_put_back(game, seats, taken)
                group = []  # back in the queue with their seats, but for those that left meanwhile
                await seating.give_back(self.lobby, list(left), hold, left)
                self.svc.spawn(self.form_again(game, seats))
                return False
        except BaseException:
            # Cancelled (a shutdown) at any point before the group was seated or put back: the
            # entries are gone, and their seats (nothing once seated: `group` is then empty).
            await seating.give_back(self.lobby, group, hold, claims)
            raise
        notice = encode({"t": "seated", "race": rid})
        for p in group:
            await self.svc.store.publish_player(p, notice)
        return True

    async def form_again(self, game: str, seats: int) -> None:
        """FORM_AGAIN_S after a put-back, seat the full groups still waiting in the queue of
        (`game`, `seats`), if any: a new arrival may have taken them out by then, else they would
        wait for one. A group that fails again is put back and looked at again, as is the queue
        if Redis cannot be read."""
        await asyncio.sleep(FORM_AGAIN_S)
        while True:
            try:
                taken = await self.svc.store.quick_take(game, seats)
            except Exception as exc:
                self.svc.failed(f"could not look at the quick-match queue of {game} for {seats} again", exc)
                self.svc.spawn(self.form_again(game, seats))
                return
            if not taken or not await self.seat_queued(game, seats, taken):
                return

    async def keep_alive(self) -> None:
        """Every KEEP_ALIVE_S, while connections here hold entries: renew this process's mark in
        each queue they are in (quick.lua), which also seats a full group of entries alive there
        (one can wait so, after a stalled process came back). A queue no connection here is
        queued in any more (seated, unqueued, closed) is no longer marked."""
        proc = self.svc.store.sessions.proc
        try:
            while self.holding:
                await asyncio.sleep(KEEP_ALIVE_S)
                for queue, sessions in list(self.holding.items()):
                    sessions = {s for s in sessions if queue in s.quick}
                    if not sessions:
                        del self.holding[queue]
                        continue
                    self.holding[queue] = sessions
                    try:
                        taken = await self.svc.store.quick_keep(*queue, proc)
                    except Exception as exc:
                        self.svc.failed(f"could not mark the quick-match queue of {queue[0]} alive", exc)
                        continue
                    if taken:  # seated beside this loop: the marks of the other queues wait for nothing
                        self.svc.spawn(self.seat_queued(*queue, taken))
        finally:
            self.keeper = None

    async def seat_group(
        self, game: str, group: list[str], time_limit_s: int, race: str | None = None, *, arena: str = ""
    ) -> R.Race:
        """A new public race of `group`, counting down at once, under id `race` (default: a
        new one), paired by `arena` if given; each player is notified (`seated`) wherever
        they are connected."""
        new = await self._seat_group(game, group, time_limit_s, race, arena, "", None)
        notice = encode({"t": "seated", "race": new.race})
        for p in group:
            await self.svc.store.publish_player(p, notice)
        return new

    async def _seat_group(
        self,
        game: str,
        group: list[str],
        time_limit_s: int,
        race: str | None,
        arena: str,
        hold: str,
        claims: Mapping[str, Sequence[str]] | None,
    ) -> R.Race:
        svc = self.svc
        gdef = check.game(game)
        names = [await svc.store.player_name(p) for p in group]
        accounts = await svc.store.accounts_among(group)
        seed, proof = await self.lobby.new_deal(gdef.id, None)
        now = await svc.store.time_ms()
        new = R.new_quick_race(
            race=race or keys.new_race_id(),
            game=gdef.id,
            total=gdef.total,
            time_limit_s=time_limit_s,
            players=list(zip(group, names, strict=True)),
            accounts=accounts,
            now=now,
            countdown_ms=svc.settings.countdown_ms,
            seed=seed,
        )
        new.certified, new.proof = proof is not None, " ".join(proof or ())
        new.arena = arena
        await self.lobby.publish_new_race(None, None, new, now, hold, claims)
        return new

    async def unqueue(self, s: Session, msg: m.Unqueue) -> m.Ok:
        """The player's entries for the game (every size) leave, whichever of their connections
        queued them, here or on another process: gone from Redis before the `ok`, and their seats
        with the claims they carried (a `quick` of the player's landing at once may have
        claimed one for an entry of its own)."""
        if msg.game in rules.GAMES:
            store = self.svc.store
            left = await store.quick_leave(msg.game, QUICK_SIZES, s.player)
            s.quick = {(game, seats) for game, seats in s.quick if game != msg.game}
            for n in QUICK_SIZES:  # a size with no entry: its seat goes if nothing claims it
                await store.drop_claims(s.player, quick_hold(msg.game, n), left.get(n, ()))
        return m.Ok(rid=msg.rid)

    async def on_disconnect(self, s: Session) -> None:
        """The closed connection lets go of the entries it holds: each leaves with its last holder."""
        pid = s.pid
        for queue in s.quick:
            self.holding.get(queue, set()).discard(s)
        if pid is None:
            return
        for game, seats in list(s.quick):
            try:
                claims = await self.svc.store.quick_release(game, seats, pid, self.holder(s))
                if claims is not None:  # the entry left: its claims on its seat end
                    await self.svc.store.drop_claims(pid, quick_hold(game, seats), claims)
            except Exception as exc:
                self.svc.failed("could not leave the quick-match queue", exc)
