"""Arenas over Redis: create, join, withdraw, pair, apply results, standings, finalize.

``ArenaStore`` knows nothing of sockets or of how a race is run. The race
server calls ``pair`` every tick for each running arena and creates a normal
race for each group it gets (``release`` if that fails); when a race ends it
calls ``apply`` with the race's ranking rows (the ``end`` message's
``ranking``). Any process may do either, any number of times: the scripts
(scripts.py) make pairing atomic and applying exactly-once.

Every time comes from ``clock`` (ms), injectable for tests.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

from . import keys, scripts
from .pairing import Free, Window, pair
from .schedule import (
    HOUR_MS,
    MAX_DURATION_MS,
    MAX_TIME_LIMIT_S,
    OVER,
    RUNNING,
    Arena,
    ArenaError,
    Schedule,
    arenas_between,
    status,
)
from .scoring import RacePoints, Standing, after_race, joined, pack, rerank, score_race

Clock = Callable[[], int]


def system_clock() -> int:
    """Wall time in ms (the default clock)."""
    return time.time_ns() // 1_000_000


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def new_race_id() -> str:
    return "a" + secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class ArenaInfo:
    arena: Arena
    created: int
    finalized: int | None  # ms, once the final standings are recorded


@dataclass(frozen=True, slots=True)
class Formed:
    """A race formed by pairing: ``players`` in standings order."""

    arena: str
    race: str
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A race's points computed from one read of the standings, not yet written."""

    arena: str
    race: str
    now: int
    points: tuple[RacePoints, ...]
    read: tuple[str, ...]  # each player's standing json as read (the script's check)
    after: tuple[Standing, ...]
    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Applied:
    """``status``: ok (written now), dup (already applied), final (arena frozen), no-race."""

    status: str
    seq: int | None = None
    points: tuple[RacePoints, ...] = ()


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    standing: Standing


@dataclass(frozen=True, slots=True)
class Board:
    """``top`` rows, and ``me`` with the rows ``around`` me (both empty without a player)."""

    count: int
    top: tuple[Row, ...]
    me: Row | None
    around: tuple[Row, ...]


class ArenaStore:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        window: Window | None = None,
        race_id: Callable[[], str] = new_race_id,
    ) -> None:
        """``redis``: a ``redis.asyncio`` client (bytes or decoded responses).
        ``window``: how pairing widens with waiting. ``race_id``: ids of formed races."""
        self.r = redis
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
        await self.r.zadd(keys.INDEX, {arena.id: arena.starts})
        return made

    async def ensure_scheduled(self, schedule: Schedule, start: int, end: int) -> list[Arena]:
        """Create every scheduled arena overlapping ``[start, end)`` (idempotent); returns them."""
        arenas = arenas_between(schedule, start, end)
        for a in arenas:
            await self.create(a)
        return arenas

    async def get(self, arena_id: str) -> ArenaInfo | None:
        raw = await self.r.hgetall(keys.meta(arena_id))
        if not raw:
            return None
        d = {_s(k): _s(v) for k, v in raw.items()}
        return ArenaInfo(
            arena=Arena.from_dict(d),
            created=int(d["created"]),
            finalized=int(d["finalized"]) if "finalized" in d else None,
        )

    async def listing(self, start: int, end: int) -> list[str]:
        """Ids of the arenas starting in ``[start, end)``, by start time."""
        return [_s(m) for m in await self.r.zrangebyscore(keys.INDEX, start, f"({end}")]

    async def active(self, ahead_ms: int = HOUR_MS) -> list[ArenaInfo]:
        """The arenas not yet finalized that started already or start within ``ahead_ms``,
        by start time: what a server process pairs, sweeps and lists."""
        now = self.clock()
        oldest = now - MAX_DURATION_MS - MAX_TIME_LIMIT_S * 1000 - 5_000
        out = []
        for arena_id in await self.listing(oldest, now + ahead_ms):
            info = await self.get(arena_id)
            if info is not None and info.finalized is None:
                out.append(info)
        return out

    async def tick(self, arena: Arena) -> list[Formed]:
        """One pass of the arena's loop: pair while it runs, finalize once it is over."""
        st = status(arena, self.clock())
        if st == RUNNING:
            return await self.pair(arena.id, arena.seats)
        if st == OVER:
            await self.finalize(arena.id)
        return []

    async def _arena(self, arena_id: str) -> Arena:
        info = await self.get(arena_id)
        if info is None:
            raise ArenaError("no-arena", f"no arena {arena_id!r}")
        return info.arena

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
            "BERSERK", [keys.meta(arena_id), keys.races(arena_id), keys.berserk(arena_id)], [race, player]
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
            ],
            [race, self.clock()],
        )
        return bool(out)

    async def formed(self, arena_id: str) -> dict[str, dict[str, Any]]:
        """The races formed and not yet applied: race → {race, players, formed, seq}."""
        raw = await self.r.hgetall(keys.races(arena_id))
        return {_s(k): json.loads(_s(v)) for k, v in raw.items()}

    async def is_joined(self, arena_id: str, player: str) -> bool:
        """Whether ``player`` is joined (paired while the arena runs), not withdrawn."""
        return bool(await self.r.sismember(keys.joined(arena_id), player))

    async def has_race(self, arena_id: str, race: str) -> bool:
        """Whether ``race`` is a formed race of the arena not yet applied."""
        return bool(await self.r.hexists(keys.races(arena_id), race))

    async def featured(self, arena_id: str) -> str | None:
        """The formed race whose best player stands highest (None without races)."""
        race = _s(await self._run("FEATURED", [keys.races(arena_id), keys.board(arena_id)], []))
        return race or None

    # --- results ------------------------------------------------------------------------

    async def prepare(
        self, arena_id: str, race: str, rows: Sequence[Mapping[str, Any]]
    ) -> Prepared | Applied:
        """Compute ``race``'s points from its ranking rows and the standings now.

        Returns ``Applied`` instead when there is nothing to write (already
        applied, unknown race, arena finalized). Raises ``ValueError`` when the rows' players
        are not the race's players.
        """
        info = await self.get(arena_id)
        if info is None:
            raise ArenaError("no-arena", f"no arena {arena_id!r}")
        arena = info.arena
        rec = await self.r.hget(keys.races(arena_id), race)
        if rec is None:
            if await self.r.hexists(keys.results(arena_id), race):
                return Applied("dup")
            return Applied("no-race" if info.finalized is None else "final")
        formed = json.loads(_s(rec))
        players = [str(p) for p in formed["players"]]
        if sorted(str(r["player"]) for r in rows) != sorted(players):
            raise ValueError(f"ranking players {[r['player'] for r in rows]} are not race {race}'s {players}")
        read = await self.r.hmget(keys.standings(arena_id), players)
        before = {p: Standing.from_dict(json.loads(_s(v))) for p, v in zip(players, read, strict=True) if v}
        if len(before) != len(players):
            raise ValueError(f"race {race} has a player with no standing")
        flags = await self.r.hmget(keys.berserk(arena_id), [f"{race}|{p}" for p in players])
        berserk = [p for p, f in zip(players, flags, strict=True) if f is not None] if arena.berserk else []
        now = self.clock()
        points = score_race(rows, {p: s.streak for p, s in before.items()}, berserk)
        after = tuple(after_race(before[rp.player], rp, now - arena.starts) for rp in points)
        result = {
            "race": race,
            "players": players,
            "formed": formed["formed"],
            "applied": now,
            "ranking": rerank(rows),
            "berserk": berserk,
            "points": [asdict(rp) for rp in points],
        }
        return Prepared(
            arena=arena_id,
            race=race,
            now=now,
            points=tuple(points),
            read=tuple(_s(read[players.index(rp.player)]) for rp in points),
            after=after,
            result=result,
        )

    async def commit(self, p: Prepared) -> Applied:
        """Write a prepared race's points if still valid: ``ok``, ``dup``, ``final``,
        ``no-race``, or ``stale`` (a standing changed since the read: prepare again)."""
        a = p.arena
        args: list[Any] = [p.race, p.now, _dumps(p.result), len(p.points)]
        for rp, read, s in zip(p.points, p.read, p.after, strict=True):
            args += [rp.player, read, _dumps(s.to_dict()), pack(s), _dumps([p.race, rp.rank, rp.points])]
        out = await self._run(
            "APPLY",
            [
                keys.meta(a),
                keys.races(a),
                keys.busy(a),
                keys.joined(a),
                keys.free(a),
                keys.standings(a),
                keys.board(a),
                keys.results(a),
                keys.seq(a),
                keys.berserk(a),
                keys.channel(a),
                keys.last(a),
                *(keys.history(a, rp.player) for rp in p.points),
            ],
            args,
        )
        status = _s(out[0])
        if status == "ok":
            return Applied("ok", int(out[1]), p.points)
        return Applied(status)

    async def apply(self, arena_id: str, race: str, rows: Sequence[Mapping[str, Any]]) -> Applied:
        """Apply a finished race's ranking rows, exactly once (any process, any number of times)."""
        for _ in range(10):
            prepared = await self.prepare(arena_id, race, rows)
            if isinstance(prepared, Applied):
                return prepared
            out = await self.commit(prepared)
            if out.status != "stale":
                return out
        raise RuntimeError(f"race {race}: standings kept changing under the apply")

    async def results(self, arena_id: str) -> dict[str, dict[str, Any]]:
        """Every applied race: race → {race, players, formed, formed_seq, applied, seq,
        ranking, berserk, points}."""
        raw = await self.r.hgetall(keys.results(arena_id))
        out = {_s(k): json.loads(_s(v)) for k, v in raw.items()}
        for res in out.values():
            if res["berserk"] == {}:  # Lua's cjson writes an empty list as {}
                res["berserk"] = []
        return out

    async def history(self, arena_id: str, player: str) -> list[tuple[str, int, int]]:
        """``player``'s races in this arena, oldest first: (race, rank, points)."""
        raw = await self.r.lrange(keys.history(arena_id, player), 0, -1)
        return [(str(r), int(k), int(p)) for r, k, p in (json.loads(_s(v)) for v in raw)]

    # --- standings ----------------------------------------------------------------------

    async def standings(
        self, arena_id: str, top: int = 10, player: str | None = None, around: int = 2
    ) -> Board:
        """One consistent read: the ``top`` rows, and ``player``'s row with ``around`` rows each side."""
        count, top_rows, me, around_rows = await self._run(
            "STANDINGS", [keys.board(arena_id), keys.standings(arena_id)], [top, player or "", around]
        )

        def rows(raw: Sequence[Any]) -> tuple[Row, ...]:
            return tuple(Row(int(k), Standing.from_dict(json.loads(_s(j)))) for j, k in raw if _s(j))

        around_t = rows(around_rows)
        mine = next((r for r in around_t if r.standing.player == player), None) if int(me) >= 0 else None
        return Board(int(count), rows(top_rows), mine, around_t)

    async def count(self, arena_id: str) -> int:
        """How many players the standings hold (withdrawn ones included)."""
        return int(await self.r.zcard(keys.board(arena_id)))

    async def all_standings(self, arena_id: str) -> list[Row]:
        board = await self.standings(arena_id, top=1 << 30)
        return list(board.top)

    # --- the end ------------------------------------------------------------------------

    async def finalize(self, arena_id: str) -> str:
        """Freeze the standings once the arena is over and its races are applied (or
        its grace has passed): ``ok`` now, ``done`` before, ``running``, ``waiting``."""
        arena = await self._arena(arena_id)
        a = arena_id
        out = await self._run(
            "FINALIZE",
            [
                keys.meta(a),
                keys.races(a),
                keys.board(a),
                keys.standings(a),
                keys.final(a),
                keys.joined(a),
                keys.free(a),
                keys.busy(a),
                keys.berserk(a),
                keys.seq(a),
                keys.last(a),
                keys.channel(a),
            ],
            [self.clock(), arena.grace_ms],
        )
        return _s(out[0])

    async def final(self, arena_id: str) -> list[Row] | None:
        """The permanent final standings, once finalized."""
        raw = await self.r.get(keys.final(arena_id))
        if raw is None:
            return None
        return [Row(int(e["rank"]), Standing.from_dict(e["standing"])) for e in json.loads(_s(raw))]
