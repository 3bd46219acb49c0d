"""The arena store's base: its scripts, and the arenas themselves (create, get, list).

``StoreBase`` holds the Redis client, the clock and the registered scripts;
``results.Results`` and ``store.ArenaStore`` build on it, one job each.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from . import keys, scripts
from .pairing import Window
from .records import ArenaInfo, Clock, new_race_id, system_clock
from .records import text as _s
from .schedule import HOUR_MS, MAX_DURATION_MS, MAX_TIME_LIMIT_S, Arena, ArenaError, Schedule, arenas_between


class StoreBase:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        window: Window | None = None,
        race_id: Callable[[], str] = new_race_id,
        countdown_ms: int = 0,
    ) -> None:
        """``redis``: a ``redis.asyncio`` client (bytes or decoded responses).
        ``window``: how pairing widens with waiting. ``race_id``: ids of formed races.
        ``countdown_ms``: the countdown before a formed race starts (its clock runs after
        it), which the grace after the end adds to the race clock."""
        self.r = redis
        self.countdown_ms = countdown_ms
        self.clock = clock
        self.window = window or Window()
        self.race_id = race_id
        self._scripts = {
            name: redis.register_script(getattr(scripts, name))
            for name in (
                "CREATE",
                "JOIN",
                "WITHDRAW",
                "FREE",
                "PAIR",
                "FEATURED",
                "BERSERK",
                "APPLY",
                "RELEASE",
            )
        }
        self._scripts["STANDINGS"] = redis.register_script(scripts.STANDINGS)
        self._scripts["FINALIZE"] = redis.register_script(scripts.FINALIZE)

    async def _run(self, name: str, keys_: Sequence[str], args: Sequence[Any]) -> Any:
        script = cast(Callable[..., Awaitable[Any]], self._scripts[name])
        return await script(keys=list(keys_), args=list(args))

    # --- arenas -------------------------------------------------------------------------

    async def create(self, arena: Arena) -> bool:
        """Create ``arena`` (validated by the caller: ``schedule.validate``); False if it existed."""
        fields: list[str] = []
        for k, v in {**arena.to_dict(), "created": self.clock()}.items():
            fields += [k, str(int(v)) if isinstance(v, bool) else str(v)]
        made = bool(await self._run("CREATE", [keys.meta(arena.id)], fields))
        # Indexed at the start the arena was created with: a creator that died before this
        # line is repaired by the next create of the same id, and a refused create (an id
        # that exists) never moves the existing arena.
        starts = arena.starts if made else await self.r.hget(keys.meta(arena.id), "starts")
        if starts is not None:
            await self.r.zadd(keys.INDEX, {arena.id: int(starts)})
        return made

    async def ensure_scheduled(self, schedule: Schedule, start: int, end: int) -> list[Arena]:
        """Create every scheduled arena overlapping ``[start, end)`` (idempotent); returns them."""
        arenas = arenas_between(schedule, start, end)
        for a in arenas:
            await self.create(a)
        return arenas

    async def get(self, arena_id: str) -> ArenaInfo | None:
        return _info(await self.r.hgetall(keys.meta(arena_id)))

    async def get_many(self, arena_ids: Sequence[str]) -> list[ArenaInfo | None]:
        """``get`` of each of ``arena_ids``, in one non-transactional pipeline (split per node
        in a cluster): the arena list reads hundreds, one round trip each made it seconds."""
        if not arena_ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for arena_id in arena_ids:
            pipe.hgetall(keys.meta(arena_id))
        return [_info(raw) for raw in await pipe.execute()]

    async def listing(self, start: int, end: int) -> list[str]:
        """Ids of the arenas starting in ``[start, end)``, by start time."""
        return [_s(m) for m in await self.r.zrangebyscore(keys.INDEX, start, f"({end}")]

    async def first_starting(self, start: int, end: int, count: int) -> list[str]:
        """The first ``count`` ids of ``listing(start, end)`` (the soonest to start)."""
        return [_s(m) for m in await self.r.zrangebyscore(keys.INDEX, start, f"({end}", start=0, num=count)]

    async def last_started(self, start: int, end: int, count: int) -> list[str]:
        """The last ``count`` ids of ``listing(start, end)``, the latest start first."""
        return [
            _s(m) for m in await self.r.zrevrangebyscore(keys.INDEX, f"({end}", start, start=0, num=count)
        ]

    async def active(self, ahead_ms: int = HOUR_MS) -> list[ArenaInfo]:
        """The arenas not yet finalized (or whose podium is not yet recorded) that started
        already or start within ``ahead_ms``, by start time: what a server process pairs,
        sweeps and lists."""
        now = self.clock()
        oldest = now - MAX_DURATION_MS - MAX_TIME_LIMIT_S * 1000 - 5_000
        # One pipeline: every process reads this every tick, ~200 arenas with the default schedule.
        infos = await self.get_many(await self.listing(oldest, now + ahead_ms))
        return [i for i in infos if i is not None and (i.finalized is None or not i.podium)]

    async def _arena(self, arena_id: str) -> Arena:
        info = await self.get(arena_id)
        if info is None:
            raise ArenaError("no-arena", f"no arena {arena_id!r}")
        return info.arena


def _info(raw: Any) -> ArenaInfo | None:
    """An arena from its meta hash as Redis returns it (empty: no such arena)."""
    if not raw:
        return None
    d = {_s(k): _s(v) for k, v in raw.items()}
    return ArenaInfo(
        arena=Arena.from_dict(d),
        created=int(d["created"]),
        finalized=int(d["finalized"]) if "finalized" in d else None,
        podium="podium" in d,
    )
