"""Sessions and the per-address limits that span processes, in Redis.

A session is a token (only its SHA-256 is stored) naming a player id. New
sessions are limited per client address (NEW_SESSIONS_PER_MIN, counted in
Redis, so across every process). A session lives FRESH_SESSION_TTL until the
player first takes a seat (`keep`: a race joined, created, quick-matched or
a daily attempt started), then SESSION_TTL, renewed at each hello; so the
identities a script creates and never uses are gone within hours.

Open public lobbies per address (`--max-public-lobbies-per-addr`) are noted
here too (`note_lobby`): a sorted set of the race ids each address created as
public lobbies; the lobby handler drops those that started, emptied or expired
as it counts them (server/core/lobby.py `open_lobbies`).

Open connections per address (MAX_CONN_PER_ADDR) and per player
(MAX_CONN_PER_PLAYER) are counted here too, for all processes: one hash per
name, a field per process holding that process's count and a field saying
until when it holds unless renewed, so the counts of a process that died
disappear with it. `conn_counts` writes this process's current counts of
many names and reads the others' in one pipeline (the admission batches
every connection of a moment into one call). `connected` reads the players'
counts to tell who is connected anywhere (a public lobby's presence,
server/handlers/presence.py).
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis.asyncio as aioredis

from .keys import new_player_id, profile_key, recent_entries_key, recent_key, seats_key, session_key
from .moves import PackedCaller
from .records import text_or_none
from .resp import pack

_COUNT_IN_WINDOW = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""

# A resumed guest's new name, only while its profile exists: a profile that expired after the
# resume read it (its session with it) must not come back as a hash of one field with no TTL.
_RENAME = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], 'name', ARGV[1])
"""

NEW_SESSION_WINDOW_MS = 60_000
# The session key's value is the player id, followed by this until the player's first seat
# (read with the id at each hello: no second round trip to learn which lifetime applies).
FRESH = " fresh"


@dataclass(frozen=True, slots=True)
class Resumed:
    """What a resumed hello learns: the player, its name, and what the same round trip read."""

    player: str
    name: str
    seats: list[str] | None  # races where it holds a seat (maybe finished since); None: not read
    account: bool = False  # the player id is an account's (a guest token no longer resumes it)


def _text(v: bytes | str | None) -> str | None:
    return v.decode() if isinstance(v, bytes) else v


def _others(fields: dict[bytes, bytes], mine: bytes, now_ms: int) -> tuple[int, list[bytes]]:
    """(open connections of the other live processes, fields of the dead ones) in one name's hash."""
    total = 0
    dead: list[bytes] = []
    for field, value in fields.items():
        if field.endswith(b":t") or field == mine:
            continue
        if int(fields.get(field + b":t", b"0")) > now_ms:
            total += max(0, int(value))
        else:
            dead += [field, field + b":t"]
    return total, dead


#: An IPv6 client is counted by its /64: one host (a home router, a VM) is usually given a
#: whole /64, so counting single addresses would let it take 2^64 allowances.
IPV6_GROUP = 64


def address_group(addr: str) -> str:
    """The name a client address is counted under by the per-address limits: an IPv4 address
    itself (also written as IPv4-mapped IPv6), an IPv6 address its /64; anything else as given."""
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_GROUP), strict=False))
    return addr


def new_session_key(addr: str) -> str:
    return "lim:sess:" + address_group(addr)


def conns_key(addr: str) -> str:
    return "conns:{" + addr + "}"


#: What a player's connection count's name starts with (an address never has a space).
PLAYER_CONNS_PREFIX = "player "


def player_conns_name(pid: str) -> str:
    """The name a player's open connections are counted under beside the addresses' (`conns_key`)."""
    return PLAYER_CONNS_PREFIX + pid


def lobbies_key(addr: str) -> str:
    return "lim:lobbies:" + address_group(addr)


class Sessions:
    def __init__(
        self, redis: aioredis.Redis, pipe: PackedCaller, session_ttl_s: int, fresh_ttl_s: int, per_min: int
    ) -> None:
        self.redis = redis
        self.pipe = pipe  # the pipelined connection (the hot path's), for the hello's commands
        self.ttl = session_ttl_s
        self.fresh_ttl = min(fresh_ttl_s, session_ttl_s)
        self.per_min = per_min  # new sessions per address per minute; 0: no limit
        self._count = redis.register_script(_COUNT_IN_WINDOW)
        self.proc = "p" + secrets.token_hex(6)  # this process, for the connection counts
        self.conn_ttl_ms = 30_000  # counts of a process that stops renewing them vanish after this
        self._dead: dict[str, list[bytes]] = {}  # name -> fields of dead processes, deleted next time
        # The key that exists when a player id is an account's (set by the accounts handlers):
        # checked in the resume round trip instead of a round trip of its own.
        self.account_key: Callable[[str], str] | None = None

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

    async def note_lobby(self, addr: str, rid: str, now_ms: int, ttl_ms: int) -> list[tuple[str, int]]:
        """Note `rid` as a public lobby created from `addr` (now); every race noted for `addr`,
        with when it was noted (the caller drops those no longer open lobbies: `forget_lobbies`).
        The set lives `ttl_ms` after its last note: as long as an untouched lobby."""
        key = lobbies_key(addr)
        pipe = self.redis.pipeline(transaction=False)  # one key: the commands run in order
        pipe.zadd(key, {rid: now_ms})
        pipe.pexpire(key, ttl_ms)
        pipe.zrange(key, 0, -1, withscores=True)
        noted = (await pipe.execute())[2]
        return [(_text(r) or "", int(at)) for r, at in noted]

    async def forget_lobbies(self, addr: str, rids: list[str]) -> None:
        """These races no longer count as public lobbies of `addr` (started, left, gone, refused)."""
        if rids:
            await self.redis.zrem(lobbies_key(addr), *rids)

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

    async def resume_session(self, token: str) -> Resumed | None:
        """The session of a valid token, its TTL renewed; None if unknown/expired.

        Two round trips on the pipelined connection: the token's player, then
        the commands that renew the session and read the name, the player's
        seats and whether it became an account (a reconnect storm is
        thousands of these at once).
        """
        key = session_key(token)
        (value,) = await self._batch([(key, ["GET", key])])
        if value is None:
            return None
        text = value.decode()
        fresh = text.endswith(FRESH)
        pid_s = text[: -len(FRESH)] if fresh else text
        ttl = self.fresh_ttl if fresh else self.ttl
        profile, seats = profile_key(pid_s), seats_key(pid_s)
        cmds: list[tuple[str, list[Any]]] = [
            (profile, ["HGET", profile, "name"]),
            (key, ["EXPIRE", key, ttl]),
            (profile, ["EXPIRE", profile, ttl]),
            (seats, ["EXPIRE", seats, ttl]),
            (seats, ["SMEMBERS", seats]),
        ]
        if self.account_key is not None:
            # An account's, unless its claim is unfinished (made, and no token given yet:
            # ratings/accounts_store.py `claim`): the guest then resumes to send it again.
            account_key = self.account_key(pid_s)
            cmds.append((account_key, ["HMGET", account_key, "key", "claiming"]))
        if not fresh:
            # Its recent races (recent.py) live as long as the session that can read them. An
            # account's are cut here only by a guest token that outlived its claim: the
            # accounts' resume then refuses it and restores them (players.py `touch_player`).
            for key in (recent_key(pid_s), recent_entries_key(pid_s)):
                cmds.append((key, ["EXPIRE", key, self.ttl]))
        replies = await self._batch(cmds)
        stored, rids = replies[0], replies[4]
        account = self.account_key is not None and replies[5][0] is not None and replies[5][1] is None
        return Resumed(pid_s, text_or_none(stored) or "player", sorted(r.decode() for r in rids), account)

    async def rename(self, pid: str, name: str) -> None:
        """A resumed guest's new display name (hello's `name`, once its connection is admitted)."""
        profile = profile_key(pid)
        await self._batch([(profile, ["EVAL", _RENAME, "1", profile, name])])

    async def end_session(self, token: str) -> None:
        """The guest session of `token` is over (its player became an account)."""
        await self._batch([(session_key(token), ["DEL", session_key(token)])])

    async def _batch(self, cmds: list[tuple[str, list[Any]]]) -> list[Any]:
        """(routing key, command) pairs sent together on the pipelined connection; their replies in order.

        The move path's connection (hand-packed commands, hiredis replies) costs
        a fraction of a redis-py pipeline per command; these are a few cheap
        commands, queued with the moves of the same loop iteration.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        replies: list[Any] = [None] * len(cmds)
        left = len(cmds)

        def got(i: int, reply: Any) -> None:
            nonlocal left
            replies[i] = reply
            left -= 1
            if not left and not done.done():
                done.set_result(None)

        for i, (key, args) in enumerate(cmds):
            self.pipe.call_packed(pack(args), partial(got, i), key)
        await done
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return replies

    async def seats(self, pid: str) -> list[str]:
        """Races where `pid` holds a seat (maybe finished since)."""
        return sorted(_text(s) or "" for s in await self.redis.smembers(seats_key(pid)))

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

    # --- open connections per name (address or player), all processes -----------------------------

    async def connected(self, pids: list[str]) -> set[str]:
        """The players among `pids` with an open connection on some live process (this one too),
        as the connection counts say: one round trip. A process that died counts until its
        counts lapse (`conn_ttl_ms`); a closed connection leaves them within a batch (50 ms)."""
        names = list(dict.fromkeys(pids))
        if not names:
            return set()
        keys = [conns_key(player_conns_name(pid)) for pid in names]
        replies = await self._batch([(key, ["HGETALL", key]) for key in keys])
        now = int(time.time() * 1000)
        live: set[str] = set()
        for pid, flat in zip(names, replies, strict=True):
            fields = dict(zip(flat[::2], flat[1::2]))
            count, _dead = _others(fields, b"", now)
            if count > 0:
                live.add(pid)
        return live

    async def conn_counts(self, counts: dict[str, int]) -> dict[str, int]:
        """Store this process's open connections per name; for each, the total of the other live processes.

        One pipeline (plain hash commands, so it also splits over a cluster's
        nodes): per name, our count (or no field once it is 0) with its expiry,
        then the whole hash. Fields of processes that stopped renewing theirs
        are skipped, and deleted by the next call that reads them.
        """
        now = int(time.time() * 1000)
        until_ms = now + self.conn_ttl_ms
        names = list(counts)
        cmds: list[tuple[str, list[Any]]] = []
        for name in names:
            key = conns_key(name)
            dead = self._dead.pop(name, None)
            if dead:
                cmds.append((key, ["HDEL", key, *dead]))
            if counts[name] > 0:
                cmds.append((key, ["HSET", key, self.proc, counts[name], self.proc + ":t", until_ms]))
                cmds.append((key, ["PEXPIRE", key, self.conn_ttl_ms]))
            else:
                cmds.append((key, ["HDEL", key, self.proc, self.proc + ":t"]))
            cmds.append((key, ["HGETALL", key]))
        replies = await self._batch(cmds)
        others: dict[str, int] = {}
        # The only list replies are the HGETALLs (flat: field, value, ...), one per name, in order.
        groups = [dict(zip(r[::2], r[1::2])) for r in replies if isinstance(r, list)]
        for name, fields in zip(names, groups):
            others[name], dead = _others(fields, self.proc.encode(), now)
            if dead:
                self._dead[name] = dead
        return others
