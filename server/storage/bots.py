"""The Redis side of bots and rematches: the bot request queue, bot identities, rematch links.

Bots do not run in the server: a `solrace bots` worker (client/bots/service.py)
pops bot requests from one Redis list and plays each one as an ordinary client
over the protocol. The server only mints the bot's identity and pushes the
request (docs/operations.md "Bots"):

``bots:requests``    list of JSON requests, pushed left, popped right (oldest first)
``bots:workers``     sorted set: worker id -> the last time it asked for work (ms)
``{bots:requests}:slots``   hash: worker id -> "FREE AT", its free slots as it last
                     reported them and when (ms, Redis clock)
``{bots:requests}:taking``  list: the requests workers have just popped (moved here
                     from ``bots:requests``) and not yet counted out of their free slots
``rematch:{race}``   the race created as the rematch of a finished race (set once)

Free slots. A request is pushed only if the workers have a free slot for it: the
free slots reported within ``within_ms`` (a worker reports them each time it asks for
work, every second while it has one, and at once when it takes a request), less the
requests already waiting for one (in ``bots:requests`` or ``taking``), must cover it.
The check and the push are one script (``RESERVE``), so two servers asking at once
never promise one slot twice; a worker moves a request to ``taking`` as it pops it
(BLMOVE) and takes it out of there in the same script that lowers its free count
(``TAKEN``), so the request counts as waiting until the slot it fills counts as used.
The two keys are hash-tagged with the list's own name: on a Redis Cluster all three
live in the list's slot, as one script needs.

A bot's player id starts with ``bot-`` (player ids are minted by the server, so
no human can have one), and its profile hash holds its level under ``bot``.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any

from .cluster import cold_client, is_cluster_url
from .failover import SentinelPrimary, is_sentinel_url
from .keys import profile_key, session_key

REQUESTS = "bots:requests"
WORKERS = "bots:workers"
SLOTS = "{bots:requests}:slots"  # the hash tag puts it in the slot of REQUESTS (a cluster)
TAKING = "{bots:requests}:taking"
BOT_PREFIX = "bot-"
LEVELS = ("random", "greedy", "search")

# Push requests (all or none) only if the workers' free slots cover them beside the
# requests already waiting. KEYS: requests, slots, taking. ARGV: now ms, within ms,
# request json... -> the spare slots before the push (pushed if at least the requests given)
RESERVE = """
local now, within = tonumber(ARGV[1]), tonumber(ARGV[2])
local free = 0
local rows = redis.call('HGETALL', KEYS[2])
for i = 1, #rows, 2 do
  local n, at = string.match(rows[i + 1], '^(%d+) (%d+)$')
  at = tonumber(at)
  if not at or at < now - 10 * within then
    redis.call('HDEL', KEYS[2], rows[i])
  elseif at >= now - within then
    free = free + tonumber(n)
  end
end
-- a request a worker popped and never counted (it died meanwhile) holds no slot once expired
for _, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  local ok, req = pcall(cjson.decode, raw)
  if not ok or type(req) ~= 'table' or (tonumber(req.expires) or 0) < now then
    redis.call('LREM', KEYS[3], 1, raw)
  end
end
local spare = free - redis.call('LLEN', KEYS[1]) - redis.call('LLEN', KEYS[3])
if spare >= #ARGV - 2 then
  for i = 3, #ARGV do redis.call('LPUSH', KEYS[1], ARGV[i]) end
end
return spare
"""

# A worker's report of its free slots, and the request it has just taken (if any) out of
# `taking`, in one step. KEYS: slots, taking. ARGV: worker, free, now ms, request json or ''.
TAKEN = """
if ARGV[4] ~= '' then redis.call('LREM', KEYS[2], 1, ARGV[4]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
return 1
"""


def connect(url: str) -> Any:
    """A redis-py asyncio client for the server's Redis URL (a redis+cluster:// one too),
    for a bot worker."""
    if is_cluster_url(url):
        return cold_client(url)
    if is_sentinel_url(url):
        return SentinelPrimary(url).cold_client(4)
    import redis.asyncio as aioredis

    return aioredis.Redis.from_url(url)


async def now_ms(redis: Any) -> int:
    """The Redis clock, ms (the server stamps requests and compares heartbeats with it)."""
    reply = await redis.time()
    if isinstance(reply, dict):  # a cluster answers per node: any node will do
        reply = next(iter(reply.values()))
    sec, usec = reply
    return int(sec) * 1000 + int(usec) // 1000


def is_bot(pid: str) -> bool:
    return pid.startswith(BOT_PREFIX)


def rematch_key(rid: str) -> str:
    return f"rematch:{{{rid}}}"


@dataclass(frozen=True, slots=True)
class BotRequest:
    """One bot to play: join `race` (kind "race") or quick-match `game` with `seats` (kind "quick")."""

    kind: str
    level: str
    token: str  # the bot's session token, minted by the server
    player: str
    game: str
    race: str = ""
    invite: str = ""  # a private race's secret, to join it
    seats: int = 2
    expires: int = 0  # ms (Redis clock): a worker drops the request after this

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: bytes | str) -> BotRequest:
        data = json.loads(raw)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


class BotQueue:
    """The queue and the bot identities, over a redis-py asyncio client."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._reserve = redis.register_script(RESERVE)
        self._taken = redis.register_script(TAKEN)

    async def new_bot(self, level: str, name: str, ttl_s: int) -> tuple[str, str]:
        """A new bot identity: (player id, session token); only sha256(token) is stored."""
        pid = BOT_PREFIX + secrets.token_hex(8)
        token = secrets.token_urlsafe(32)
        pipe = self.redis.pipeline(transaction=False)
        key = session_key(token)
        # As storage/sessions.py keeps a session that took a seat (not "fresh": a bot always sits).
        pipe.set(key, pid, ex=ttl_s)
        pipe.hset(profile_key(pid), mapping={"name": name, "bot": level, "sess": key, "seated": 1})
        pipe.expire(profile_key(pid), ttl_s)
        await pipe.execute()
        return pid, token

    async def level_of(self, pid: str) -> str | None:
        raw = await self.redis.hget(profile_key(pid), "bot")
        return None if raw is None else (raw.decode() if isinstance(raw, bytes) else str(raw))

    async def forget_bot(self, pid: str, token: str) -> None:
        """Drop a bot identity minted for a request that was not pushed."""
        await self.redis.delete(session_key(token))
        await self.redis.delete(profile_key(pid))

    async def push(self, request: BotRequest) -> None:
        """Queue a request whatever the free slots (a rematch's bot: its race was promised
        one); it counts as waiting for a slot all the same."""
        await self.redis.lpush(REQUESTS, request.to_json())

    async def reserve(self, requests: list[BotRequest], now_ms: int, within_ms: int) -> bool:
        """Push `requests` (all or none) if the free slots the workers reported within
        `within_ms` cover them beside the requests already waiting; False: not pushed."""
        args: list[Any] = [now_ms, within_ms, *(r.to_json() for r in requests)]
        return int(await self._reserve(keys=[REQUESTS, SLOTS, TAKING], args=args)) >= len(requests)

    async def free_slots(self, now_ms: int, within_ms: int) -> int:
        """The free slots the workers reported within `within_ms`, less the requests
        already waiting for one (a look, no push: `reserve` decides)."""
        return int(await self._reserve(keys=[REQUESTS, SLOTS, TAKING], args=[now_ms, within_ms]))

    async def take(self, timeout_s: float) -> bytes | None:
        """The oldest request, waiting up to `timeout_s` for one (a worker's side): moved
        to `taking` until `taken` counts it out of the worker's free slots."""
        raw = await self.redis.blmove(REQUESTS, TAKING, timeout_s, "RIGHT", "LEFT")
        return None if raw is None else (raw if isinstance(raw, bytes) else str(raw).encode())

    async def taken(self, worker: str, free: int, now_ms: int, raw: bytes | None = None) -> None:
        """Report the worker's free slots; with `raw`, the request it took (from `take`)
        leaves `taking` in the same step."""
        await self._taken(keys=[SLOTS, TAKING], args=[worker, max(0, free), now_ms, raw or b""])

    async def heartbeat(self, worker: str, now_ms: int, free: int) -> None:
        """The worker asks for work with `free` slots: its report, and its heartbeat."""
        await self.taken(worker, free, now_ms)
        await self.redis.zadd(WORKERS, {worker: now_ms})

    async def workers_alive(self, now_ms: int, within_ms: int) -> int:
        """Workers that asked for work lately (stale ones are pruned)."""
        await self.redis.zremrangebyscore(WORKERS, "-inf", now_ms - 10 * within_ms)
        return int(await self.redis.zcount(WORKERS, now_ms - within_ms, "+inf"))

    async def leave(self, worker: str) -> None:
        await self.redis.hdel(SLOTS, worker)
        await self.redis.zrem(WORKERS, worker)

    async def in_queue(self, key: str, pid: str) -> bool:
        """Does `pid` still wait in the quick-match queue `key`?"""
        return await self.redis.lpos(key, pid) is not None

    async def queued_players(self, key: str) -> int:
        """How many players wait in a quick-match queue (its list key)."""
        return int(await self.redis.llen(key))

    async def claim_rematch(self, rid: str, new_rid: str, ttl_s: int) -> str:
        """The rematch race of `rid`: `new_rid` if this call set it, else the one set before."""
        key = rematch_key(rid)
        if await self.redis.set(key, new_rid, nx=True, ex=ttl_s):
            return new_rid
        raw = await self.redis.get(key)
        if raw is None:  # expired between the two calls: claim again
            return await self.claim_rematch(rid, new_rid, ttl_s)
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    async def rematch_of(self, rid: str) -> str | None:
        raw = await self.redis.get(rematch_key(rid))
        return None if raw is None else (raw.decode() if isinstance(raw, bytes) else str(raw))
