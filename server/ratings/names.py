"""The accounts' name index: one player per name, reserved before its account is made.

The index (``{accounts}:names``, name key -> player) and an account (``{acct:P}``) live in
different slots, so a claim first *reserves* the name in the index, noting when in
``{accounts}:reserved``, then creates the account, then *confirms* the reservation (drops
that note). A reservation is a claim in flight for ``RESERVATION_STALE_MS``; after that
another claim of the name takes it over unless its account was made (the name is then that
account's).

A claim that stops half-way (Redis failing through its last steps, its process gone) leaves
its note behind. None outlives ``RESERVATION_LAPSE_MS``: ``settle_lapsed``, which every
server process runs every minute (server/handlers/accounts.py), confirms a lapsed one whose
account was made (its password logs in; its claim, if unfinished, can still be finished:
accounts_store.Accounts.claim) and releases one whose account never was, index entry and
note together, so that the name is free again for claims and guests' display names alike.
"""

from __future__ import annotations

from typing import Any

from . import keys
from .common import Clock, text

RESERVATION_STALE_MS = 60_000
# Far longer than a claim's steps may take: a reservation released under a claim whose
# account is still being made would leave that account's name out of the index.
RESERVATION_LAPSE_MS = 5 * 60_000

# Reserve a name for a player while its account is created. KEYS: names,
# reserved. ARGV: key, player, previous owner or '', now, its reservation's time read ('' none).
# The previous owner is given only to take over a reservation whose account
# was never created (a claim that died half-way: see NameIndex.reserve), and only while that
# reservation is as it was read: its claim may have made its account and confirmed it since.
# -> {"ok"} | {"taken", owner, reserved at or ''}
RESERVE = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
local stale = ARGV[3] ~= '' and v == ARGV[3] and (redis.call('HGET', KEYS[2], ARGV[1]) or '') == ARGV[5]
if (not v) or v == ARGV[2] or stale then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
  return {'ok'}
end
return {'taken', v, redis.call('HGET', KEYS[2], ARGV[1]) or ''}
"""

# The account of a reserved name exists: the reservation is final. An index entry found
# missing (a lapsed reservation released, settle_lapsed) is the account's again.
# KEYS: names, reserved. ARGV: key, player. -> 1 | 0 (another player's)
CONFIRM = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and v ~= ARGV[2] then return 0 end
if not v then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# Release a name if it is still reserved for the player. KEYS: names, reserved. ARGV: key, player.
RELEASE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
"""

# Settle a lapsed reservation, unless reserved again since it was read (its time changed):
# its note goes, and its index entry too unless its owner's account holds the name.
# KEYS: names, reserved. ARGV: key, owner read ('' if none), reserved at, held '1'|'0'.
# -> 1 settled | 0 reserved again meanwhile
LAPSE = """
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[4] == '0' and redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""


class NameIndex:
    def __init__(self, redis: Any, clock: Clock) -> None:
        self.redis = redis
        self.clock = clock
        self._reserve = redis.register_script(RESERVE)
        self._confirm = redis.register_script(CONFIRM)
        self._release = redis.register_script(RELEASE)
        self._lapse = redis.register_script(LAPSE)

    async def reserve(self, key: str, player: str) -> bool:
        """Reserve the name for ``player`` before its account is created. A reservation
        whose account was never created (its claim died half-way) is taken over once it is
        ``RESERVATION_STALE_MS`` old; a younger one is a claim in flight. The takeover lands
        only on the reservation as read: its account, found not made, may be made and its name
        confirmed before it."""
        now = self.clock()
        res = await self._reserve(keys=[keys.NAMES, keys.RESERVED], args=[key, player, "", now, ""])
        if text(res[0]) == "ok":
            return True
        owner, at = text(res[1]), text(res[2])
        if await self.holds(owner, key) or (at and now - int(at) < RESERVATION_STALE_MS):
            return False
        res = await self._reserve(keys=[keys.NAMES, keys.RESERVED], args=[key, player, owner, now, at])
        return text(res[0]) == "ok"

    async def confirm(self, key: str, player: str) -> bool:
        """The account of ``player`` holds the name: its reservation is final."""
        return bool(await self._confirm(keys=[keys.NAMES, keys.RESERVED], args=[key, player]))

    async def release(self, key: str, player: str) -> None:
        """The name goes back, if it is still reserved for ``player``."""
        await self._release(keys=[keys.NAMES, keys.RESERVED], args=[key, player])

    async def held(self, name_keys: list[str]) -> bool:
        """Whether an account holds one of these name keys, or a claim in flight reserved it:
        one HMGET of the names' index (one slot)."""
        if not name_keys:
            return False
        return any(owner is not None for owner in await self.redis.hmget(keys.NAMES, name_keys))

    async def holds(self, player: str, key: str) -> bool:
        """Whether ``player``'s account holds the name."""
        return text(await self.redis.hget(keys.account(player), "key") or b"") == key

    async def settle_lapsed(self) -> int:
        """Settle every reservation made ``RESERVATION_LAPSE_MS`` ago or more (module doc):
        how many."""
        due = self.clock() - RESERVATION_LAPSE_MS
        notes = {text(k): text(v) for k, v in (await self.redis.hgetall(keys.RESERVED)).items()}
        lapsed = [(k, at) for k, at in notes.items() if not at.isdigit() or int(at) <= due]
        if not lapsed:
            return 0
        owners = await self.redis.hmget(keys.NAMES, [k for k, _ in lapsed])
        settled = 0
        for (key, at), raw in zip(lapsed, owners, strict=True):
            owner = "" if raw is None else text(raw)
            held = bool(owner) and await self.holds(owner, key)
            args = [key, owner, at, "1" if held else "0"]
            settled += int(await self._lapse(keys=[keys.NAMES, keys.RESERVED], args=args))
        return settled
