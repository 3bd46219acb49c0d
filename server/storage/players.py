"""Players across races: names, the races they sit in, their channel, quick-match queues."""

from __future__ import annotations

import msgspec

from .keys import player_channel, profile_key, quick_key, race_key, seats_key
from .parts import StorePart
from .records import text_or_none
from .scripts import QUICK
from .sessions import Sessions


class Players(StorePart):
    sessions: Sessions

    async def touch_player(self, pid: str, name: str) -> None:
        """An account's hello: its display name, and its records live on like a resumed guest's."""
        ttl = self.settings.session_ttl_s
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(profile_key(pid), "name", name)
        pipe.expire(profile_key(pid), ttl)
        pipe.expire(seats_key(pid), ttl)
        await pipe.execute()

    async def player_name(self, pid: str) -> str:
        return text_or_none(await self.redis.hget(profile_key(pid), "name")) or "player"

    async def player_races(self, pid: str) -> list[str]:
        """Races where the player holds a seat and which are not finished (prunes the rest)."""
        ids = [i.decode() for i in await self.redis.smembers(seats_key(pid))]
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for rid in ids:
            pipe.hmget(race_key(rid), "status", "players")
        live, gone = [], []
        for rid, (status, players) in zip(ids, await pipe.execute()):
            if status is None or status == b"finished" or pid.encode() not in (players or b""):
                gone.append(rid)
            else:
                live.append(rid)
        if gone:
            await self.redis.srem(seats_key(pid), *gone)
        return sorted(live)

    async def hold_seat(self, pid: str, rid: str) -> None:
        """Record that `pid` sits in `rid`, with no notice: written before the race's commit, so
        that a process dying right after it leaves the player able to resume the race."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(seats_key(pid), rid)
        pipe.expire(seats_key(pid), self.settings.session_ttl_s)
        await pipe.execute()

    async def add_seat(self, pid: str, rid: str) -> None:
        """Seat `pid` in `rid`; its connections on every process learn it (a `seated` notice)."""
        await self.hold_seat(pid, rid)  # again: a resume may have pruned it before the commit
        await self.redis.publish(player_channel(pid), msgspec.msgpack.encode({"t": "seated", "race": rid}))
        await self.sessions.keep(pid)

    async def remove_seat(self, pid: str, rid: str) -> None:
        await self.redis.srem(seats_key(pid), rid)

    async def publish_player(self, pid: str, frame: bytes) -> None:
        await self.redis.publish(player_channel(pid), frame)

    # --- quick-match -------------------------------------------------------------------------

    async def quick_push(self, game: str, seats: int, pid: str) -> list[str]:
        reply = await QUICK(self.redis, [quick_key(game, seats)], [pid, seats, 3600])
        return [x.decode() for x in reply]

    async def quick_remove(self, game: str, seats: int, pid: str) -> None:
        await self.redis.lrem(quick_key(game, seats), 0, pid)
