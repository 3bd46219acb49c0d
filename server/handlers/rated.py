"""Rated races on the wire (docs/protocol.md §9): rated create/join/start, rated quick-match, the rating update.

Casual requests go straight to the lobby (server/handlers/lobby.py) and the casual
quick-match (server/handlers/quick_match.py); this module adds what a rated race needs around it:

- ``create`` with ``rated``: a logged-in account, at least two seats, the
  server's clock; each seat records its login session (``Player.session``);
- ``join`` of a rated race: accounts only (bots and guests never sit in one);
  ``bot`` in a rated race is refused (``bad-message``, field ``race``);
- ``start`` of a rated race with one player present is refused (``not-rateable``, by the
  lobby's own start on the race it commits: server/core/lobby.py ``host_start``);
- ``quick`` with ``rated``: the player waits in the game's rating pool, from
  which every process forms races every ``rated_form_ms`` (the matchmaking
  loop here) and on each arrival (server/handlers/rated_queue.py);
- the end of a rated race (the service's ``end_hooks``, run by the process
  whose end commit won) updates ratings with ``Ratings.record_race``, which
  applies each race once whoever calls it, then sends every player a
  ``rating`` event with the changes;
- every rated race is listed as pending (server/ratings ``PendingRaces``)
  until rated, so that a race whose ending process died before rating it is
  rated by the matchmaking loop of any process once it is due (``repair``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode, RaceStatus

from ..core import checks as check
from ..core import privacy
from ..core import races as R
from ..core import rated as rated_rules
from ..core.races import RaceError
from ..core.session import Session
from ..ratings import Accounts, Entrant, Pool, RaceOutcome, RatingError, Ratings
from ..ratings.pending import PendingRaces
from ..ratings.seats import PoolSessions
from ..storage import keys
from .accounts import AccountHandlers, rating_value
from .lobby import new_invite, race_id, snapshot_reply
from .rated_queue import RatedQueue
from .recent import record_rating

if TYPE_CHECKING:  # pragma: no cover
    from ..service import Service

log = logging.getLogger("solrace.rated")

encode = m.encode


def change_event(outcome: RaceOutcome) -> m.RatingChange:
    return m.RatingChange(
        race=outcome.race,
        game=outcome.game,
        players=[
            m.RatingPlayer(
                player=p.player,
                name=p.name,
                rank=p.rank,
                weight=p.weight,
                before=rating_value(p.before),
                after=rating_value(p.after),
            )
            for p in outcome.players
        ],
    )


class RatedHandlers:
    def __init__(self, queue: RatedQueue) -> None:
        """Around the rated quick-match `queue`, with its service, ratings, identity and
        pending races."""
        self.queue = queue
        self.svc, self.ratings, self.identity, self.pending = (
            queue.svc,
            queue.ratings,
            queue.identity,
            queue.pending,
        )
        self.pool, self.sessions = queue.pool, queue.sessions  # for tests and tools

    def install(self) -> None:
        svc = self.svc
        # A casual quick-match goes to the handler installed before this one (handlers/bots.py's,
        # a bot for a lonely player), not straight to handlers/quick_match.py.
        self.casual_quick = svc.handlers[m.Quick]
        self.casual_bot = svc.handlers[m.Bot]
        svc.handlers.update(
            {
                m.Create: self.create,
                m.Join: self.join,
                m.Quick: self.quick,
                m.Unqueue: self.unqueue,
                m.Bot: self.bot,
            }
        )
        svc.end_hooks.append(self.on_end)
        self.queue.install()
        svc.spawn(self.matchmaker())

    # --- rated lobby --------------------------------------------------------------------------

    async def create(self, s: Session, msg: m.Create) -> m.RaceSnapshot:
        lobby = self.svc.lobby
        if not msg.rated:
            return await lobby.create(s, msg)
        li = await self.identity.account_of(s)
        gdef = check.game(msg.game)
        st = self.svc.settings
        seats = check.seats(msg.seats, m.DEFAULT_SEATS, st.max_seats)
        if seats < 2:
            raise RaceError(ErrorCode.BAD_MESSAGE, "`seats`: a rated race has at least 2", field="seats")
        if msg.time_limit_s is not None and msg.time_limit_s != st.time_limit_s:
            raise RaceError(
                ErrorCode.BAD_MESSAGE,
                f"`time_limit_s`: a rated race runs on the server's clock ({st.time_limit_s} s)",
                field="time_limit_s",
            )
        rid = keys.new_race_id()
        # The seat taken in the same step as it is counted (handlers/lobby.py `taking_seat`).
        async with lobby.taking_seat(li.player, rid):
            if not msg.private:
                await lobby.public_lobby_limit(s, rid)
            seed = self.svc.seed_factory()
            now = await self.svc.store.time_ms()
            race = lobby.build_race(s, gdef, seats, st.time_limit_s, bool(msg.private), seed, now, rid)
            race.rated = True
            race.players[0].session, race.players[0].account = li.session, True
            if race.private:
                race.invite = new_invite()
            await self.pending.add(race.game, race.race, rated_rules.check_at(race, now))
            return await lobby.publish_new_race(s, msg, race, now)

    async def join(self, s: Session, msg: m.Join) -> m.RaceSnapshot:
        lobby = self.svc.lobby
        rid = race_id(msg.race)
        _now, race = await self.svc.store.load_race(rid)
        if race is None or not race.rated:
            return await lobby.join(s, msg)
        # Privacy first (docs/protocol.md §6 "Which error first"): a guest told `not-logged-in`
        # would learn that a private race it may not see is rated.
        privacy.check_join(race, s.player, msg.invite)
        li = await self.identity.account_of(s)
        # The seat taken in the same step as it is counted (handlers/lobby.py `taking_seat`;
        # a player seated already reserves nothing).
        async with lobby.taking_seat(li.player, rid) as attempt:
            race = await lobby.mutate(
                rid, lambda r, now: rated_rules.seat(r, li.player, li.name, li.session), attempt
            )
            await self.svc.store.add_seat(li.player, rid)
        self.svc.add_member(s, race)
        return snapshot_reply(msg, race, li.player)

    async def bot(self, s: Session, msg: m.Bot) -> m.Ok:
        """`bot`: bots never sit in a rated race, so it is refused up front (a worker's bot
        would be refused at its own `join`, after an `ok` here)."""
        _now, race = await self.svc.store.load_race(race_id(msg.race))
        if race is not None and race.rated:
            if race.seat_of(s.player) is None:  # as for any race (server/core/bots.py)
                raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
            raise RaceError(ErrorCode.BAD_MESSAGE, "a rated race is for accounts only: no bots", field="race")
        result: m.Ok = await self.casual_bot(s, msg)
        return result

    # --- rated quick-match --------------------------------------------------------------------

    async def quick(self, s: Session, msg: m.Quick) -> None:
        if msg.rated:
            await self.queue.quick(s, msg)
        else:
            await self.casual_quick(s, msg)

    async def unqueue(self, s: Session, msg: m.Unqueue) -> m.Ok:
        await self.queue.unqueue(s, msg)
        return await self.svc.quick_match.unqueue(s, msg)

    async def matchmaker(self) -> None:
        """Form rated races from every game's pool, every ``rated_form_ms``."""
        svc = self.svc
        failed = 0
        while not svc.stopping:
            await asyncio.sleep(svc.settings.rated_form_ms / 1000)
            try:
                for game in rules.GAMES:
                    await self.queue.form(game)
                    await self.repair(game)
            except Exception as exc:
                failed += 1
                if failed == 1:
                    svc.failed("rated matchmaking failed", exc)
                continue
            failed = 0

    # --- the end --------------------------------------------------------------------------------

    async def on_end(self, race: R.Race, logs: dict[str, list[tuple[int, int, str]]]) -> None:
        if race.rated:
            await self.rate(race)

    async def rate(self, race: R.Race) -> RaceOutcome | None:
        """Update the ratings of a finished rated race (exactly once, whoever calls) and
        tell its players: the call that takes it out of the pending list does, so that a call
        that applied it and failed before (the players' recent races, a Redis blip) leaves the
        telling to the repair that rates it again. None if it cannot be rated."""
        try:
            outcome = await self.ratings.record_race(
                race.game, race.race, [Entrant(*e) for e in rated_rules.entrants(race)], ended_ms=race.ended
            )
        except RatingError as exc:
            log.warning("rated race %s was not rated: %s", race.race, exc.message)
            await self.pending.remove(race.game, race.race)
            return None
        # Beside each player's recent race, before the race leaves the pending list: if this
        # fails, the repair rates it again (the stored outcome) and writes it then.
        await record_rating(
            self.svc.store,
            race.race,
            race.ended if race.ended is not None else outcome.at_ms,
            [(p.player, rating_value(p.before), rating_value(p.after)) for p in outcome.players],
        )
        # Every rated race is pending from before it is stored (module docstring): of the
        # calls that rate it, one takes it out, once.
        if await self.pending.remove(race.game, race.race):
            frame = encode(change_event(outcome))
            for p in outcome.players:
                await self.svc.store.publish_player(p.player, frame)
        return outcome

    async def repair(self, game: str, now_ms: int | None = None) -> None:
        """Rate the due pending races of `game` that have finished (their ending process
        may have died before rating them); look at the others again later."""
        now = self.svc.now_ms() if now_ms is None else now_ms
        for rid in await self.pending.due(game, now):
            _now, race = await self.svc.store.load_race(rid)
            if race is None:  # expired in its lobby
                await self.pending.remove(game, rid)
            elif race.status == RaceStatus.FINISHED:
                await self.rate(race)
            else:
                await self.pending.add(game, rid, rated_rules.check_at(race, now))


def install(svc: Service, accounts: Accounts, ratings: Ratings, pool: Pool, daily: Any) -> RatedHandlers:
    """Accounts and rated races into a running service (after the daily, before start)."""
    identity = AccountHandlers(svc, accounts, ratings, daily)
    identity.install()
    redis = accounts.redis
    queue = RatedQueue(svc, accounts, ratings, pool, PoolSessions(redis), identity, PendingRaces(redis))
    rated = RatedHandlers(queue)
    rated.install()
    return rated
