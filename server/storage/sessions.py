"""Sessions and the per-address limits that span processes, in Redis.

A session is a token (only its SHA-256 is stored) naming a player id. New
sessions are limited per client address (NEW_SESSIONS_PER_MIN, counted in
Redis, so across every process). A session lives FRESH_SESSION_TTL until the
player first takes a seat (`keep`: a race joined, created, quick-matched or
a daily attempt started), then SESSION_TTL, renewed at each hello; so the
identities a script creates and never uses are gone within hours.

Open connections per address (MAX_CONN_PER_ADDR) are counted here too, for
all processes: each process keeps its counts in a hash of its own that
expires unless the process renews it (`heartbeat`), so the counts of a
process that died disappear with it; `conn_open` adds one and returns the
total over the live processes.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import redis.asyncio as aioredis

from .keys import new_player_id, profile_key, seats_key, session_key
from .records import text_or_none

_COUNT_IN_WINDOW = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""

# One address's open connections: field PROC = that process's count, PROC:t = when it expires
# unless renewed. Adds DELTA to ours, drops the expired, returns the live total.
_CONN_COUNT = """
local proc, delta, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local mine = redis.call('HINCRBY', KEYS[1], proc, delta)
if mine <= 0 then
  redis.call('HDEL', KEYS[1], proc, proc .. ':t')
else
  redis.call('HSET', KEYS[1], proc .. ':t', now + ttl)
end
local total = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local field = all[i]
  if string.sub(field, -2) ~= ':t' then
    local until_ms = tonumber(redis.call('HGET', KEYS[1], field .. ':t') or '0')
    if until_ms > now then
      total = total + math.max(0, tonumber(all[i + 1]))
    else
      redis.call('HDEL', KEYS[1], field, field .. ':t')
    end
  end
end
if total > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return total
"""

NEW_SESSION_WINDOW_MS = 60_000
# The session key's value is the player id, followed by this until the player's first seat
# (read with the id at each hello: no second round trip to learn which lifetime applies).
FRESH = " fresh"


def _text(v: bytes | str | None) -> str | None:
    return v.decode() if isinstance(v, bytes) else v


def new_session_key(addr: str) -> str:
    return "lim:sess:" + addr


def conns_key(addr: str) -> str:
    return "conns:{" + addr + "}"


class Sessions:
    def __init__(self, redis: aioredis.Redis, session_ttl_s: int, fresh_ttl_s: int, per_min: int) -> None:
        self.redis = redis
        self.ttl = session_ttl_s
        self.fresh_ttl = min(fresh_ttl_s, session_ttl_s)
        self.per_min = per_min  # new sessions per address per minute; 0: no limit
        self._count = redis.register_script(_COUNT_IN_WINDOW)
        self._conn_count = redis.register_script(_CONN_COUNT)
        self.proc = "p" + secrets.token_hex(6)  # this process, for the connection counts
        self.conn_ttl_ms = 30_000  # counts of a process that stops renewing them vanish after this

    async def admit_new(self, addr: str) -> int:
        """0 if `addr` may create a session now, else milliseconds until it may."""
        if not self.per_min:
            return 0
        key = new_session_key(addr)
        n = int(await self._count(keys=[key], args=[NEW_SESSION_WINDOW_MS]))
        if n <= self.per_min:
            return 0
        left = int(await self.redis.pttl(key))
        return left if left > 0 else NEW_SESSION_WINDOW_MS

    async def new_session(self, name: str) -> tuple[str, str]:
        """A new identity: (player id, token), kept FRESH_SESSION_TTL until its first seat."""
        pid = new_player_id()
        token = secrets.token_urlsafe(32)
        key = session_key(token)
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(key, pid + FRESH, ex=self.fresh_ttl)
        pipe.hset(profile_key(pid), mapping={"name": name, "sess": key})
        pipe.expire(profile_key(pid), self.fresh_ttl)
        await pipe.execute()
        return pid, token

    async def resume_session(self, token: str, name: str | None) -> tuple[str, str] | None:
        """(player id, name) for a valid token, renewing its TTL; None if unknown/expired."""
        key = session_key(token)
        value = _text(await self.redis.get(key))
        if value is None:
            return None
        fresh = value.endswith(FRESH)
        pid_s = value[: -len(FRESH)] if fresh else value
        ttl = self.fresh_ttl if fresh else self.ttl
        profile = profile_key(pid_s)
        pipe = self.redis.pipeline(transaction=False)
        if name is not None:
            pipe.hset(profile, "name", name)
        pipe.hget(profile, "name")
        pipe.expire(key, ttl)
        pipe.expire(profile, ttl)
        pipe.expire(seats_key(pid_s), ttl)
        stored = (await pipe.execute())[-4]
        return pid_s, (text_or_none(stored) or name or "player")

    async def keep(self, pid: str) -> None:
        """The player took a seat: its session lives SESSION_TTL from now on (once is enough)."""
        profile = profile_key(pid)
        if await self.redis.hsetnx(profile, "seated", 1) == 0:
            return
        key = _text(await self.redis.hget(profile, "sess"))
        pipe = self.redis.pipeline(transaction=False)
        if key is not None:
            pipe.set(key, pid, xx=True, ex=self.ttl)  # no longer fresh
        pipe.expire(profile, self.ttl)
        await pipe.execute()

    # --- open connections per address, all processes -------------------------------------------

    async def conn_count(self, addr: str, delta: int) -> int:
        """Add `delta` to this process's open connections from `addr`; the total over all processes."""
        args: list[Any] = [self.proc, delta, int(time.time() * 1000), self.conn_ttl_ms]
        return int(await self._conn_count(keys=[conns_key(addr)], args=args))

    async def conns_closed(self, names: list[str]) -> None:
        """One connection less for each of these (addresses, "player PID"), in one round trip.

        A count left at 0 is dropped by the next `conn_count` of that name, or expires.
        """
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hincrby(conns_key(name), self.proc, -1)
        await pipe.execute()

    async def heartbeat(self, addrs: list[str]) -> None:
        """Keep this process's counts of these addresses alive (call well within conn_ttl_ms)."""
        until_ms = int(time.time() * 1000) + self.conn_ttl_ms
        pipe = self.redis.pipeline(transaction=False)
        for addr in addrs:
            pipe.hset(conns_key(addr), self.proc + ":t", until_ms)
            pipe.pexpire(conns_key(addr), self.conn_ttl_ms)
        await pipe.execute()
