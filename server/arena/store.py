"""Arenas over Redis: create, join, withdraw, pair, apply results, standings, finalize.

``ArenaStore`` knows nothing of sockets or of how a race is run. The race
server calls ``pair`` every tick for each running arena and creates a normal
race for each group it gets (``release`` if that fails); when a race ends it
calls ``apply`` with the race's ranking rows (the ``end`` message's
``ranking``). Any process may do either, any number of times: the scripts
(scripts.py) make pairing atomic and applying exactly-once.

Every time comes from ``clock`` (ms), injectable for tests. The store is
split by job: ``base`` (scripts, the arenas), ``results`` (apply once,
standings, the end) and this module (players and pairing); ``records`` has
the plain data they pass around.
"""

from __future__ import annotations

import json
from typing import Any

from . import keys
from .pairing import Free, pair
from .records import (
    Applied,
    ArenaInfo,
    Board,
    Clock,
    Formed,
    Podium,
    Prepared,
    Row,
    new_race_id,
    system_clock,
)
from .records import dumps as _dumps
from .records import text as _s
from .results import Results
from .schedule import OVER, RUNNING, Arena, ArenaError, status
from .scoring import joined, pack

#: Players read at once walking the standings from the top for the featured race (FEATURED).
FEATURED_CHUNK = 64

__all__ = [
    "Applied",
    "ArenaInfo",
    "ArenaStore",
    "Board",
    "Clock",
    "Formed",
    "Podium",
    "Prepared",
    "Row",
    "new_race_id",
    "system_clock",
]


class ArenaStore(Results):
    """What the race server calls (docs/arenas.md §6): the arenas (``base``), players and
    pairing (here), results, standings and the end (``results``)."""

    async def tick(self, arena: Arena) -> list[Formed]:
        """One pass of the arena's loop: pair while it runs, finalize once it is over,
        then record its podium in the players' records."""
        st = status(arena, self.clock())
        if st == RUNNING:
            return await self.pair(arena.id, arena.seats)
        if st == OVER and await self.finalize(arena.id) in ("ok", "done"):
            await self.record_podium(arena.id)
        return []

    # --- players ------------------------------------------------------------------------

    async def join(self, arena_id: str, player: str, name: str) -> None:
        """Join (or rejoin) until the arena ends; raises ``ArenaError``."""
        arena = await self._arena(arena_id)
        now = self.clock()
        first = joined(player, name, now - arena.starts)
        out = await self._run(
            "JOIN",
            [
                keys.meta(arena_id),
                keys.joined(arena_id),
                keys.free(arena_id),
                keys.busy(arena_id),
                keys.standings(arena_id),
                keys.board(arena_id),
            ],
            [player, now, _dumps(first.to_dict()), pack(first)],
        )
        status = _s(out[0])
        if status == "no-arena":
            raise ArenaError("no-arena", f"no arena {arena_id!r}")
        if status == "over":
            raise ArenaError("arena-over", f"arena {arena_id!r} is over")

    async def withdraw(self, arena_id: str, player: str) -> bool:
        """No more pairing for ``player`` (a race in progress still counts); False if not joined."""
        out = await self._run("WITHDRAW", [keys.joined(arena_id), keys.free(arena_id)], [player])
        return bool(out)

    async def berserk(self, arena_id: str, race: str, player: str) -> bool:
        """Record that ``player`` takes half the clock in ``race`` (the race server halves
        their clock before the start); False where the arena forbids it or not their race."""
        out = await self._run(
            "BERSERK",
            [keys.meta(arena_id), keys.races(arena_id), keys.berserk(arena_id)],
            [race, player, self.clock()],
        )
        return bool(out)

    # --- pairing ------------------------------------------------------------------------

    async def free_players(self, arena_id: str, now: int) -> list[Free]:
        rows = await self._run("FREE", [keys.free(arena_id), keys.board(arena_id), keys.last(arena_id)], [])
        return [
            Free(_s(p), int(pos), max(0, now - int(float(_s(since)))), _s(last))
            for p, since, pos, last in rows
        ]

    async def pair(self, arena_id: str, seats: int) -> list[Formed]:
        """Form races of the free players now; returns the races this call formed.

        Safe to call from every process at once: a group whose players were
        taken meanwhile by someone else is simply not formed.
        """
        now = self.clock()
        groups = pair(await self.free_players(arena_id, now), seats, self.window)
        if not groups:
            return []
        formed = {self.race_id(): tuple(f.player for f in g) for g in groups}
        args: list[Any] = [now]
        for race, players in formed.items():
            args += [race, len(players), *players]
        out = await self._run(
            "PAIR",
            [
                keys.meta(arena_id),
                keys.free(arena_id),
                keys.busy(arena_id),
                keys.races(arena_id),
                keys.seq(arena_id),
            ],
            args,
        )
        return [Formed(arena_id, _s(r), formed[_s(r)]) for r in out if _s(r) in formed]

    async def release(self, arena_id: str, race: str) -> bool:
        """Drop a formed race that will not be played; its players are free again."""
        out = await self._run(
            "RELEASE",
            [
                keys.races(arena_id),
                keys.busy(arena_id),
                keys.joined(arena_id),
                keys.free(arena_id),
                keys.berserk(arena_id),
                keys.meta(arena_id),
            ],
            [race, self.clock()],
        )
        return bool(out)

    async def formed(self, arena_id: str) -> dict[str, dict[str, Any]]:
        """The races formed and not yet applied: race → {race, players, formed, seq}."""
        raw = await self.r.hgetall(keys.races(arena_id))
        return {_s(k): json.loads(_s(v)) for k, v in raw.items()}

    async def formed_race(self, arena_id: str, race: str) -> dict[str, Any] | None:
        """One race of ``formed``, or None (a request needs one: ``formed`` reads them all)."""
        raw = await self.r.hget(keys.races(arena_id), race)
        return None if raw is None else dict(json.loads(_s(raw)))

    async def race_of(self, arena_id: str, player: str) -> str | None:
        """The formed race ``player`` is in, not yet applied, or None."""
        race = await self.r.hget(keys.busy(arena_id), player)
        return None if race is None else _s(race)

    async def is_joined(self, arena_id: str, player: str) -> bool:
        """Whether ``player`` is joined (paired while the arena runs), not withdrawn."""
        return bool(await self.r.sismember(keys.joined(arena_id), player))

    async def has_race(self, arena_id: str, race: str) -> bool:
        """Whether ``race`` is a formed race of the arena not yet applied."""
        return bool(await self.r.hexists(keys.races(arena_id), race))

    async def featured(self, arena_id: str) -> str | None:
        """The formed race whose best player stands highest (None without races)."""
        race = _s(await self._run("FEATURED", [keys.board(arena_id), keys.busy(arena_id)], [FEATURED_CHUNK]))
        return race or None
