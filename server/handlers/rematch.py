"""Rematch (docs/protocol.md §3 "Rematch"): the same players, a new deal, the same settings.

The first player of a finished race to ask creates the new race (its host,
seated) and every other player gets a `rematch` offer; accepting is `join`.
The link old race -> new race is set once in Redis (SET NX), so whoever asks
next, on any process, gets the same new race and is seated in it. A bot of
the old race is replaced by a new bot of the same level, counted against the
asker (the new race's host) like a `bot` of theirs (server/handlers/bots.py):
past MAX_WAITING_BOTS_PER_PLAYER bots waiting for a start, the other old bots
are not replaced and their seats stay free (a person may take one, or the host
starts with the players present).

Once that rematch has left its lobby (started, finished, or gone), asking
again for a rematch of the old race makes a fresh one, as the first ask did:
the link is moved from the spent rematch to the new race by a compare-and-set
(``REPLACE_LINK``), so among several processes asking at once one wins and
the others are seated in its race. A link whose race is not stored yet (its
creator is between the claim and the store) is waited for, not replaced.
"""

from __future__ import annotations

import asyncio

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from ..core import bots as B
from ..core import races as R
from ..core.races import Race, RaceError
from ..core.session import Session
from ..storage import keys
from ..storage.bots import is_bot, rematch_key
from .bots import Bots
from .lobby import Lobby, new_invite, race_id
from .runtime import Runtime

encode = m.encode

# Move the rematch link of a race (KEYS[1]) from the spent rematch ARGV[1] to the new race
# ARGV[2] (expiring in ARGV[3] s); an expired link is set as the first claim would. Returns
# the link as it is after the call: ARGV[2] if this call set it, else another asker's race.
REPLACE_LINK = """
local cur = redis.call('GET', KEYS[1])
if not cur or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return ARGV[2]
end
return cur
"""

NOT_STORED_WAIT = 50  # tries, 20 ms apart, for a rematch race its creator has not stored yet


def text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Rematch:
    def __init__(self, svc: Runtime, lobby: Lobby, bots: Bots) -> None:
        self.svc = svc
        self.lobby = lobby
        self.bots = bots
        self._replace_link = svc.store.redis.register_script(REPLACE_LINK)

    async def rematch(self, s: Session, msg: m.Rematch) -> m.RaceSnapshot:
        svc = self.svc
        rid = race_id(msg.race)
        _now, race = await svc.store.load_race(rid)
        if race is None:
            raise RaceError(ErrorCode.NO_SUCH_RACE, "no such race")
        settings = B.rematch_settings(race, s.player)
        queue = self.bots.queue
        existing = await queue.rematch_of(rid)
        if existing is not None and await self._in_lobby(existing):
            return await self._accept(s, msg, existing)
        # No rematch yet, or it is spent (started, finished, gone): a fresh one, its seat taken
        # in the same step as it is counted (handlers/lobby.py `taking_seat`).
        new_rid = keys.new_race_id()
        async with self.lobby.taking_seat(s.player, new_rid):
            claimed, new, reply, now = await self._fresh(s, msg, rid, settings, existing, new_rid)
            if new is None:  # another player's rematch won the claim: join that one instead
                await svc.store.release_seats(s.player, new_rid)
        if new is None or reply is None:
            return await self._accept(s, msg, claimed)
        offer = encode(
            m.RematchOffer(
                race=rid,
                rematch=new_rid,
                by=s.player,
                name=s.name,
                invite=new.invite or None,
                account=s.account,
            )
        )
        bots_left = True  # while the host may have one more bot waiting (bots.py)
        # The race is made and its host seated: an offer that fails (a Redis blip) fails neither
        # the host's reply nor the others' offers. The rival not told finds it by asking too.
        for pid in B.offer_to(race, s.player):
            try:
                if is_bot(pid):
                    if bots_left:
                        level = await queue.level_of(pid) or "greedy"
                        bots_left = await self.bots.send_rematch_bot(
                            s.player, level, settings.game, now, race=new_rid, invite=new.invite
                        )
                else:
                    await svc.store.publish_player(pid, offer)
            except Exception as exc:
                svc.failed(f"could not offer the rematch {new_rid} to {pid}", exc)
        return reply

    async def _fresh(
        self,
        s: Session,
        msg: m.Rematch,
        rid: str,
        settings: B.RematchSettings,
        existing: str | None,
        new_rid: str,
    ) -> tuple[str, Race | None, m.RaceSnapshot | None, int]:
        """Claim `new_rid` as the rematch of `rid` and publish it: (the claimed rematch, the
        new race, its snapshot reply, now), or (another's claimed rematch, None, None, 0)."""
        svc = self.svc
        queue = self.bots.queue
        if not settings.private:
            # A rematch is a new public lobby like a create: else create, finish, rematch would
            # list lobbies past --max-public-lobbies-per-addr.
            await self.lobby.public_lobby_limit(s, new_rid)
        ttl_s = svc.settings.lobby_ttl_s
        if existing is None:
            claimed = await queue.claim_rematch(rid, new_rid, ttl_s)
        else:
            claimed = text(await self._replace_link(keys=[rematch_key(rid)], args=[existing, new_rid, ttl_s]))
        if claimed != new_rid:
            if not settings.private and s.addr:
                await svc.store.sessions.forget_lobbies(s.addr, [new_rid])  # not ours to count
            return claimed, None, None, 0
        seed = svc.seed_factory()
        now = await svc.store.time_ms()
        new = R.new_race(
            race=new_rid,
            game=settings.game,
            total=settings.total,
            seats=settings.seats,
            time_limit_s=settings.time_limit_s,
            private=settings.private,
            host=s.player,
            host_name=s.name,
            host_account=s.account,
            now=now,
            seed=seed,
        )
        if new.private:
            new.invite = new_invite()
        else:
            new.listed_from = now + B.REMATCH_UNLISTED_MS
        reply = await self.lobby.publish_new_race(s, msg, new, now)
        return claimed, new, reply, now

    async def _in_lobby(self, new_rid: str) -> bool:
        """Whether the rematch race `new_rid` still waits in its lobby (one stored moments ago
        is waited for); False once it started or finished, or if it is gone."""
        for attempt in range(NOT_STORED_WAIT):
            _now, new = await self.svc.store.load_race(new_rid)
            if new is not None:
                return new.status == RaceStatus.LOBBY
            if attempt < NOT_STORED_WAIT - 1:
                await asyncio.sleep(0.02)
        return False

    async def _accept(self, s: Session, msg: m.Rematch, new_rid: str) -> m.RaceSnapshot:
        """Another player created the rematch: take a seat in it (it may be a moment
        before its creator has stored it). A player of the old race is invited."""
        for attempt in range(NOT_STORED_WAIT):
            _now, new = await self.svc.store.load_race(new_rid)
            if new is not None:
                # Joined only once loaded: a join of a private race stored since the load
                # would be refused for want of its invite (`private-race`).
                return await self.lobby.join(s, m.Join(race=new_rid, invite=new.invite or None, rid=msg.rid))
            if attempt < NOT_STORED_WAIT - 1:
                await asyncio.sleep(0.02)
        raise RaceError(ErrorCode.NO_SUCH_RACE, "the rematch race is gone")
