"""The Redis side of bots and rematches: the bot request queue, bot identities, rematch links.

Bots do not run in the server: a `solrace bots` worker (client/bots/service.py)
pops bot requests from one Redis list and plays each one as an ordinary client
over the protocol. The server only mints the bot's identity and pushes the
request (docs/operations.md "Bots"):

``bots:requests``    list of JSON requests, pushed left, popped right (oldest first);
                     the expired ones at the right trimmed ("Stale requests")
``bots:workers``     sorted set: worker id -> the last time it asked for work (ms)
``{bots:requests}:slots``   hash: worker id -> "FREE AT", its free slots as it last
                     reported them and when (ms, Redis clock)
``{bots:requests}:taking``  list: the requests workers have just popped (moved here
                     from ``bots:requests``) and not yet counted out of their free slots
``{bots:requests}:seen``    hash: request json -> when a worker's sweep first saw it in
                     ``taking`` (ms, Redis clock)
``{bots:requests}:bots``    hash: bot player id -> "EPOCH WORKER REQUEST", the bots being
                     played: the worker that holds the bot's lease (``-``: none, a
                     ``resume`` request for it is queued) and the request it plays
``{bots:requests}:leases``  sorted set: bot player id -> when its lease ends (ms, Redis clock)
``rematch:{race}``   the race created as the rematch of a finished race (set once)

Free slots. A request is pushed only if the workers have a free slot for it: the
free slots reported within ``within_ms`` (a worker reports them each time it asks for
work, every second while it has one, and at once when it takes a request), less the
requests already waiting for one (in ``bots:requests`` or ``taking``), must cover it.
The check and the push are one script (``RESERVE``), so two servers asking at once
never promise one slot twice; a worker moves a request to ``taking`` as it pops it
(BLMOVE) and takes it out of there in the same script that lowers its free count
(``TAKEN``), so the request counts as waiting until the slot it fills counts as used.
The other keys are hash-tagged with the list's own name: on a Redis Cluster they all
live in the list's slot, as one script needs.

Taken back. A worker stalled (SIGSTOP, a frozen VM) while its pop waits in Redis still
gets the next request moved to ``taking``, and never claims it. Each second every
worker sweeps ``taking`` (``RETAKE``): a request found there ``TAKE_HOLD_MS`` after the
sweep first saw it goes back to the queue, to be popped next, by a live worker; an
expired one is dropped. A claim takes only a request still in ``taking``: the stalled
worker, if it wakes, finds its request gone (or popped again, and then it is the one
whose claim takes it, the other's claim finding it gone), so one worker plays it.

Stale requests. A request no worker took before its ``expires`` is refused by the claim,
and nothing pops the queue while no worker runs, when a rematch's bots are still pushed
(whatever the free slots). So each push first drops the requests at the queue's old end that
no worker would play any more, expired by the Redis clock or malformed, up to the first one a
worker may still play (``TRIM``, in the pushing script); and every server's sweep does the
same (``trim``), for a queue nothing pushes to any more. The queue then holds about the last
minute's requests, whether or not a worker runs, and an empty list is no key.

Leases. A bot outlives its worker. The worker that takes a request records the bot
(``CLAIM``, in the step that counts its slot), and renews the lease of every bot it
plays each second (``RENEW``, ``LEASE_MS``); a worker that stops releases them (ends
them at once), and one killed lets them age. Each second every worker re-queues the
bots whose lease has ended (``RESCUE``): the record gets the next epoch and no worker,
and a ``resume`` request (the bot's id and that epoch) goes to the head of the queue,
pushed whatever the free slots (the bot was promised one) and counted as waiting like
any. The worker that takes it claims the bot only if the record still has that epoch
and no worker: so one worker at a time holds a bot's lease. It plays the recorded
request again with the bot's token, from the bot's seat if the race still has it
(the server's welcome lists it) and from the seat's position; else it starts nothing
and drops the record. A resume request no worker claimed within ``RESUME_HOLD_MS``
(a stalled worker swallowed it) is re-queued with the next epoch, the old one refused.
A worker whose renewal finds the record with another epoch or worker gives the bot up
without another move; its own bots are gated on the lease it last renewed, ending
``LEASE_MARGIN_MS`` before Redis's, so a worker stalled past its lease sends nothing
before it learns whether the bot is still its own. A renewal that finds no record (Redis
lost it; no other worker can hold a bot without one) writes it again (``PUT``), as the
worker of a quick-match bot does once it is seated (the record learns the race). A bot
through with its race (ended, or its seat given back) is dropped by its worker (``SETTLE``).

A bot's player id starts with ``bot-`` (player ids are minted by the server, so
no human can have one), and its profile hash holds its level under ``bot``.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..core.record import BOT_PREFIX as BOT_PREFIX  # re-exported: the bot ids' prefix, one definition
from ..core.record import is_bot as is_bot
from .cluster import cold_client, is_cluster_url
from .failover import SentinelPrimary, is_sentinel_url
from .keys import profile_key, session_key


def _lua(name: str) -> str:
    """A script of this module, kept beside it as a .lua file (comments there say its KEYS and ARGV)."""
    return (Path(__file__).parent / name).read_text()


REQUESTS = "bots:requests"
WORKERS = "bots:workers"
SLOTS = "{bots:requests}:slots"  # the hash tag puts it in the slot of REQUESTS (a cluster)
TAKING = "{bots:requests}:taking"
SEEN = "{bots:requests}:seen"
BOTS = "{bots:requests}:bots"
LEASES = "{bots:requests}:leases"
LEVELS = ("random", "greedy", "search")
RESUME = "resume"  # the kind of a request that resumes a recorded bot

LEASE_MS = 5000  # a bot's lease, renewed every second by its worker
LEASE_MARGIN_MS = 1000  # the worker stops its bot this much before the lease ends in Redis
RESUME_HOLD_MS = 10_000  # a resume request unclaimed this long is replaced (and expires)
# A popped request unclaimed this long (after a sweep first saw it) goes back to the queue:
# well above the two Redis calls between a pop and its claim, on a loaded machine.
TAKE_HOLD_MS = 5000
RESCUE_BATCH = 100  # bots one worker re-queues in one step

# The scripts, each in a .lua file beside this module whose first lines say what it does
# and its KEYS and ARGV.
TRIM = _lua("bot_trim.lua")  # a function, put ahead of the two scripts that push: drop expired requests
RESERVE = TRIM + _lua("bot_reserve.lua")  # push requests only if free slots cover them
PUSH = TRIM + _lua("bot_push.lua")  # push requests whatever the free slots (or only trim)
TAKEN = _lua("bot_taken.lua")  # a worker's free slots, and the request it has just popped
CLAIM = _lua("bot_claim.lua")  # take a popped request, if it is still the worker's to take
RENEW = _lua("bot_renew.lua")  # renew the leases a worker holds
PUT = _lua("bot_put.lua")  # write a bot's record and lease
SETTLE = _lua("bot_settle.lua")  # a worker lets bots go (drop or release)
RESCUE = _lua("bot_rescue.lua")  # re-queue the bots whose lease has ended
RETAKE = _lua("bot_retake.lua")  # put back the requests popped and left unclaimed
PUSHED = _lua("bot_pushed.lua")  # whether a request was pushed (its reply lost)


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


def rematch_key(rid: str) -> str:
    return f"rematch:{{{rid}}}"


@dataclass(frozen=True, slots=True)
class BotRequest:
    """One bot to play: join `race` (kind "race") or quick-match `game` with `seats` (kind "quick");
    or resume the recorded bot `player` (kind "resume", pushed by a worker: the other fields
    are in its record)."""

    kind: str
    level: str
    token: str  # the bot's session token, minted by the server
    player: str
    game: str
    race: str = ""
    invite: str = ""  # a private race's secret, to join it
    seats: int = 2
    expires: int = 0  # ms (Redis clock): a worker drops the request after this
    epoch: int = 0  # kind "resume": the epoch of the bot's record it may claim

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
        self._push = redis.register_script(PUSH)
        self._taken = redis.register_script(TAKEN)
        self._claim = redis.register_script(CLAIM)
        self._renew = redis.register_script(RENEW)
        self._put = redis.register_script(PUT)
        self._settle = redis.register_script(SETTLE)
        self._rescue = redis.register_script(RESCUE)
        self._retake = redis.register_script(RETAKE)
        self._pushed = redis.register_script(PUSHED)

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
        one); it counts as waiting for a slot all the same. The expired requests at the
        queue's old end are dropped in the same step (`trim`)."""
        await self._push(keys=[REQUESTS], args=[request.to_json()])

    async def trim(self) -> int:
        """Drop the requests no worker would play any more (expired, by the Redis clock, or
        malformed) from the queue's old end, up to the first one a worker may still play: how
        many. Every push does it first; the servers' sweep does it too, for a queue that no
        worker pops and nothing pushes to any more (server/handlers/leftovers.py)."""
        return int(await self._push(keys=[REQUESTS], args=[]))

    async def reserve(self, requests: list[BotRequest], now_ms: int, within_ms: int) -> bool:
        """Push `requests` (all or none) if the free slots the workers reported within
        `within_ms` cover them beside the requests already waiting; False: not pushed."""
        args: list[Any] = [now_ms, within_ms, *(r.to_json() for r in requests)]
        return int(await self._reserve(keys=[REQUESTS, SLOTS, TAKING], args=args)) >= len(requests)

    async def pushed(self, request: BotRequest) -> bool:
        """Whether `request` was pushed: a `reserve` that raised may have run in Redis (its
        reply lost). Asked right after it, while a worker that took the request still holds
        its bot's record (until the bot is through with its race)."""
        args = [request.to_json(), request.player]
        return bool(await self._pushed(keys=[REQUESTS, TAKING, BOTS], args=args))

    async def free_slots(self, now_ms: int, within_ms: int) -> int:
        """The free slots the workers reported within `within_ms`, less the requests
        already waiting for one (a look, no push: `reserve` decides)."""
        return int(await self._reserve(keys=[REQUESTS, SLOTS, TAKING], args=[now_ms, within_ms]))

    async def take(self, timeout_s: float) -> bytes | None:
        """The oldest request, waiting up to `timeout_s` for one (a worker's side): moved
        to `taking` until `taken` counts it out of the worker's free slots."""
        raw = await self.redis.blmove(REQUESTS, TAKING, timeout_s, "RIGHT", "LEFT")
        return None if raw is None else (raw if isinstance(raw, bytes) else str(raw).encode())

    async def taken(self, worker: str, free: int, now_ms: int | None, raw: bytes | None = None) -> int:
        """Report the worker's free slots at `now_ms` (None: the Redis clock as it is written);
        with `raw`, the request it took (from `take`) leaves `taking` in the same step. The
        time reported."""
        args = [worker, max(0, free), "" if now_ms is None else now_ms, raw or b""]
        return int(await self._taken(keys=[SLOTS, TAKING], args=args))

    async def heartbeat(self, worker: str, now_ms: int | None, free: int) -> None:
        """The worker asks for work with `free` slots: its report, then its heartbeat. A worker
        gives no `now_ms` (None): its report is stamped by the Redis clock as it is written, in
        one round trip, not two (the clock's, then the report's)."""
        at = await self.taken(worker, free, now_ms)
        await self.redis.zadd(WORKERS, {worker: at})

    async def claim(
        self, worker: str, free: int, now_ms: int, raw: bytes, lease_ms: int = LEASE_MS
    ) -> tuple[int, BotRequest | None, str]:
        """Take the request `raw` (from `take`) with `free` slots: (the epoch of the lease
        now held, the request to play, "") or (0, None, why not: expired, over, taken...).
        The request leaves `taking` and the free slots are reported in the same step."""
        reply = await self._claim(
            keys=[SLOTS, TAKING, BOTS, LEASES], args=[worker, max(0, free), now_ms, raw, lease_ms]
        )
        epoch, body = int(reply[0]), reply[1]
        if epoch <= 0:
            return 0, None, body.decode() if isinstance(body, bytes) else str(body)
        return epoch, BotRequest.from_json(body), ""

    async def renew(
        self, worker: str, held: list[tuple[str, int]], now_ms: int, lease_ms: int = LEASE_MS
    ) -> list[int]:
        """Renew the leases (bot, epoch) the worker holds: per bot 1 renewed, 0 lost (the
        record has another epoch or worker), -1 no record."""
        if not held:
            return []
        args: list[Any] = [worker, now_ms, lease_ms]
        for bot, epoch in held:
            args += [bot, epoch]
        return [int(x) for x in await self._renew(keys=[BOTS, LEASES], args=args)]

    async def put(
        self, worker: str, epoch: int, request: BotRequest, now_ms: int, lease_ms: int = LEASE_MS
    ) -> bool:
        """Write the record of a bot whose lease the worker holds (its race now known, or the
        record lost by Redis); False: another worker's."""
        args = [worker, now_ms, lease_ms, request.player, epoch, request.to_json()]
        return bool(await self._put(keys=[BOTS, LEASES], args=args))

    async def settle(self, worker: str, held: list[tuple[str, int]], drop: bool) -> int:
        """The worker lets its bots (bot, epoch) go: dropped (through with their races) or
        released (their leases end now: re-queued at the next rescue)."""
        if not held:
            return 0
        args: list[Any] = [worker, "drop" if drop else "release"]
        for bot, epoch in held:
            args += [bot, epoch]
        return int(await self._settle(keys=[BOTS, LEASES], args=args))

    async def rescue(self, now_ms: int, hold_ms: int = RESUME_HOLD_MS, most: int = RESCUE_BATCH) -> int:
        """Re-queue the bots whose lease has ended, as resume requests: how many."""
        return int(await self._rescue(keys=[BOTS, LEASES, REQUESTS], args=[now_ms, hold_ms, most]))

    async def retake(self, now_ms: int, hold_ms: int = TAKE_HOLD_MS) -> int:
        """Re-queue the requests popped and left unclaimed `hold_ms` (a stalled worker's): how many."""
        return int(await self._retake(keys=[TAKING, SEEN, REQUESTS], args=[now_ms, hold_ms]))

    async def workers_alive(self, now_ms: int, within_ms: int) -> int:
        """Workers that asked for work lately (stale ones are pruned)."""
        await self.redis.zremrangebyscore(WORKERS, "-inf", now_ms - 10 * within_ms)
        return int(await self.redis.zcount(WORKERS, now_ms - within_ms, "+inf"))

    async def leave(self, worker: str) -> None:
        await self.redis.hdel(SLOTS, worker)
        await self.redis.zrem(WORKERS, worker)

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
