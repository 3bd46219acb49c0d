"""The rated quick-match pool of each game, in Redis, shared by every process.

Players ``join`` with their μ and the race size they want and ``leave`` when
they give up. An entry is the player's, whichever of their connections (on
whichever process) asked: each connection that joins *holds* it (a random id,
in a set next to the pool), and its ``release`` when it closes drops the entry
only if no holder is left. Any process may call ``form`` (the server calls
it every second, and on every arrival): it reads the pool, forms races with
the pure ``matchmaking.form_races`` and takes each group out with one Lua
script that removes all its members only if every one of them still waits
with the entry the group was formed from. Two processes forming at the same
moment therefore never put one player in two races; a group one of them
lost is simply formed again on the next call from what is left.

Entries older than ``stale_ms`` (a player whose process died without
``leave``) are dropped by ``form``; a holder set expires ``stale_ms`` after
its last join, so the ids of a dead process's connections keep nothing longer.
"""

from __future__ import annotations

import json
from typing import Any

from . import keys, scripts
from .common import Clock, compact_json, text
from .matchmaking import DEFAULT_CURVE, Curve, Waiting, form_races
from .rating import MAX_PLAYERS, MIN_PLAYERS

STALE_MS = 600_000


def _entry(mu: float, joined_ms: int, seats: int) -> str:
    return compact_json({"mu": mu, "joined": joined_ms, "seats": seats})


class Pool:
    def __init__(
        self, redis: Any, clock: Clock, curve: Curve = DEFAULT_CURVE, stale_ms: int = STALE_MS
    ) -> None:
        self.redis = redis
        self.clock = clock
        self.curve = curve
        self.stale_ms = stale_ms
        self._join = redis.register_script(scripts.JOIN)
        self._take = redis.register_script(scripts.TAKE)
        self._drop = redis.register_script(scripts.DROP)
        self._release = redis.register_script(scripts.RELEASE_HOLD)
        self._leave = redis.register_script(scripts.LEAVE)

    async def join(self, game: str, player: str, mu: float, seats: int, holder: str = "") -> bool:
        """Wait for a rated race of ``seats``; False if already waiting for that size
        (the player keeps their place). Joining for another size replaces the entry.
        ``holder``: the asking connection's id, which holds the entry until ``release``."""
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise ValueError(f"a rated race has {MIN_PLAYERS} to {MAX_PLAYERS} seats")
        return bool(
            await self._join(
                keys=[keys.pool(game), keys.held(game, player)],
                args=[player, _entry(mu, self.clock(), seats), seats, holder, self.stale_ms],
            )
        )

    async def release(self, game: str, player: str, holder: str) -> bool:
        """``holder`` lets go of the player's entry (its connection closed); True if the entry
        left with it, the last holder."""
        return bool(
            await self._release(keys=[keys.held(game, player), keys.pool(game)], args=[holder, player])
        )

    async def leave(self, game: str, player: str) -> bool:
        """Take the player's entry out, whoever holds it; True if there was one."""
        return bool(await self._leave(keys=[keys.pool(game), keys.held(game, player)], args=[player]))

    async def forget_holders(self, game: str, players: list[str]) -> None:
        """The players' entries were taken out for good (seated, or dropped: a revoked session)."""
        if players:
            await self.redis.delete(*(keys.held(game, p) for p in players))

    async def has(self, game: str, player: str) -> bool:
        return bool(await self.redis.hexists(keys.pool(game), player))

    async def restore(self, game: str, group: list[Waiting]) -> None:
        """Put back players that ``form`` took out but who were not seated after all, each with
        their entry as it was (their waiting time kept), unless they joined again meanwhile."""
        if not group:
            return
        pipe = self.redis.pipeline(transaction=False)
        for w in group:
            pipe.hsetnx(keys.pool(game), w.player, _entry(w.mu, w.joined_ms, w.seats))
        await pipe.execute()

    async def waiting(self, game: str) -> list[Waiting]:
        raw = await self.redis.hgetall(keys.pool(game))
        out = []
        for player, entry in raw.items():
            d = json.loads(entry)
            out.append(Waiting(text(player), float(d["mu"]), int(d["joined"]), int(d["seats"])))
        return out

    async def form(self, game: str, dropped: list[str] | None = None) -> list[list[Waiting]]:
        """The races this call took out of the pool (each a list of ``Waiting``). The players
        whose stale entries it dropped are added to ``dropped`` (their session and seat are
        the caller's to let go)."""
        now = self.clock()
        pool = await self.waiting(game)
        fresh = []
        for w in pool:
            if now - w.joined_ms >= self.stale_ms:
                entry = _entry(w.mu, w.joined_ms, w.seats)
                if await self._drop(keys=[keys.pool(game)], args=[w.player, entry]) and dropped is not None:
                    dropped.append(w.player)
            else:
                fresh.append(w)
        taken = []
        for group in form_races(fresh, now, self.curve):
            args: list[Any] = []
            for w in group:
                args += [w.player, _entry(w.mu, w.joined_ms, w.seats)]
            if await self._take(keys=[keys.pool(game)], args=args):
                taken.append(group)
        return taken
