"""The Redis side of bots and rematches: the bot request queue, bot identities, rematch links.

Bots do not run in the server: a `solrace bots` worker (client/bots/service.py)
pops bot requests from one Redis list and plays each one as an ordinary client
over the protocol. The server only mints the bot's identity and pushes the
request (docs/operations.md "Bots"):

``bots:requests``    list of JSON requests, pushed left, popped right (oldest first)
``bots:workers``     sorted set: worker id -> the last time it asked for work (ms)
``rematch:{race}``   the race created as the rematch of a finished race (set once)

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
BOT_PREFIX = "bot-"
LEVELS = ("random", "greedy", "search")


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

    async def push(self, request: BotRequest) -> None:
        await self.redis.lpush(REQUESTS, request.to_json())

    async def pop(self, timeout_s: float) -> BotRequest | None:
        """The oldest request, waiting up to `timeout_s` for one (a worker's side)."""
        reply = await self.redis.brpop([REQUESTS], timeout=timeout_s)
        if reply is None:
            return None
        return BotRequest.from_json(reply[1])

    async def heartbeat(self, worker: str, now_ms: int) -> None:
        await self.redis.zadd(WORKERS, {worker: now_ms})

    async def workers_alive(self, now_ms: int, within_ms: int) -> int:
        """Workers that asked for work lately (stale ones are pruned)."""
        await self.redis.zremrangebyscore(WORKERS, "-inf", now_ms - 10 * within_ms)
        return int(await self.redis.zcount(WORKERS, now_ms - within_ms, "+inf"))

    async def leave(self, worker: str) -> None:
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
