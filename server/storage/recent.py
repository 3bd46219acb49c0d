"""Players' recent races in Redis (docs/protocol.md §9 `recent`): one capped list per player.

Keys (keys.py): ``pl:{PID}:recent``, a sorted set race id -> end time (ms), and
``pl:{PID}:recent:e``, a hash race id -> the race's entry (JSON, built by
server/core/recent.py) and race id + ":r" -> its rating change once rated. Both carry
the player's hash tag, the slot of ``pl:{PID}``, so the script (recent.lua) that
writes them touches one slot of a Redis Cluster.

Written by the end's follow-up (server/handlers/clock.py), not by the end commit itself:
the race's keys and each player's are in different slots, so no script can write both.
The write is idempotent instead (the race id is the member: a follow-up done again after a
process died lists the race once), and the follow-up is done again until it has been
written (the race's timer stays until then).

Cap and lifetimes:

- ``RECENT_CAP`` races per player, the newest by end time (a race written again after
  RECENT_CAP newer ones falls off at once);
- a guest's list lives SESSION_TTL after its last write and is renewed with its session
  at each hello (sessions.py `resume_session`): it outlives the token that can read it;
- an account's list lives ``ACCOUNT_RECENT_TTL_S`` (90 days, or SESSION_TTL if that is
  longer) after its last write or the account's last hello (players.py `touch_player`):
  an account token lasts 30 days from its last use, and an account that logs in again
  with its password within three such spans still finds its races. A write never
  shortens a list's TTL, so a guest's race written for a player who has just claimed an
  account keeps the account's lifetime.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from ..core.record import is_bot
from .keys import recent_entries_key, recent_key
from .parts import StorePart
from .records import text_or_none
from .scripts import RECENT
from .sessions import Sessions

RECENT_CAP = 50  # races kept per player (the wire's `recent.limit` is at most this)
ACCOUNT_RECENT_TTL_S = 90 * 24 * 3600  # an account's list, from its last write or hello
RATING_SUFFIX = ":r"  # the field of a race's rating change: race id + this


def recent_ttl_s(session_ttl_s: int, account: bool) -> int:
    """How long a player's list lives after a write or a hello (see the module docstring)."""
    return max(ACCOUNT_RECENT_TTL_S, session_ttl_s) if account else session_ttl_s


class RecentRaces(StorePart):
    sessions: Sessions

    async def accounts_among(self, pids: Iterable[str]) -> set[str]:
        """The players of `pids` who are accounts (see `account_names`)."""
        return set(await self.account_names(pids))

    async def account_names(self, pids: Iterable[str]) -> dict[str, str]:
        """The players of `pids` who are accounts -> their account names: one HGET each of
        their account record, in one non-transactional pipeline (split per node in a
        cluster). Boards keep the name a player raced under; a guest who has claimed an
        account since is shown by the account's name, read here. Without accounts on this
        server (no account key known to the sessions), none."""
        key_of = self.sessions.account_key
        wanted = [p for p in dict.fromkeys(pids) if not is_bot(p)]
        if key_of is None or not wanted:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for p in wanted:
            pipe.hget(key_of(p), "name")
        names = [text_or_none(n) for n in await pipe.execute()]
        return {p: n for p, n in zip(wanted, names) if n is not None}

    async def note_recent(
        self, rid: str, at: int, values: Mapping[str, bytes], *, rating: bool = False
    ) -> None:
        """Write race `rid`, ended at `at`, into the lists of the players of `values` (player
        id -> its entry, or with `rating` its rating change). Idempotent."""
        if not values:
            return
        accounts = await self.accounts_among(values)
        suffix = RATING_SUFFIX if rating else ""
        ttl = self.settings.session_ttl_s
        await asyncio.gather(
            *(
                RECENT(
                    self.redis,
                    [recent_key(pid), recent_entries_key(pid)],
                    [rid, at, suffix, value, RECENT_CAP, recent_ttl_s(ttl, pid in accounts) * 1000],
                )
                for pid, value in values.items()
            )
        )

    async def recent_races(self, pid: str, limit: int) -> list[tuple[bytes, bytes | None]]:
        """The player's latest `limit` races, newest first: (entry, rating change or None).
        A race whose entry is not written yet (only its rating change is) is left out."""
        rids: list[bytes] = await self.redis.zrevrange(recent_key(pid), 0, max(limit, 1) - 1)
        if not rids:
            return []
        fields: list[bytes] = []
        for r in rids:
            fields += [r, r + RATING_SUFFIX.encode()]
        values: list[bytes | None] = await self.redis.hmget(recent_entries_key(pid), fields)
        pairs = zip(values[0::2], values[1::2])
        return [(entry, change) for entry, change in pairs if entry is not None]
