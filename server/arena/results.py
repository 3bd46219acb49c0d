"""Arena results and standings over Redis: apply a finished race exactly once, read
the standings, finalize the permanent record (docs/arenas.md §5)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from . import keys
from .base import StoreBase
from .records import Applied, Board, Podium, Prepared, Row
from .records import dumps as _dumps
from .records import text as _s
from .schedule import ArenaError
from .scoring import Standing, after_race, pack, played, rerank, score_race

PODIUM = 3  # the places recorded in the players' records
#: A player's podium places kept, the latest (by the arena's end): a player in every arena of
#: a quiet server places in most, thousands a month, and each profile read them all.
PODIUMS_KEPT = 100


class Results(StoreBase):
    # --- results ------------------------------------------------------------------------

    async def prepare(
        self, arena_id: str, race: str, rows: Sequence[Mapping[str, Any]], berserked: Collection[str] = ()
    ) -> Prepared | Applied:
        """Compute ``race``'s points from its ranking rows and the standings now. A player
        berserks if the arena recorded it or the race says so (``berserked``: the race took
        the berserk, and its record may have failed after).

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
        took = [p for p, f in zip(players, flags, strict=True) if f is not None or p in berserked]
        berserk = took if arena.berserk else []
        now = self.clock()
        points = score_race(rows, {p: s.streak for p, s in before.items()}, berserk)
        by_player = {str(r["player"]): r for r in rows}
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
            absent=tuple(not played(by_player[rp.player]) for rp in points),
        )

    async def commit(self, p: Prepared) -> Applied:
        """Write a prepared race's points if still valid: ``ok``, ``dup``, ``final``,
        ``no-race``, or ``stale`` (a standing changed since the read: prepare again)."""
        a = p.arena
        args: list[Any] = [p.race, p.now, _dumps(p.result), len(p.points)]
        for rp, read, s, absent in zip(p.points, p.read, p.after, p.absent, strict=True):
            history = _dumps([p.race, rp.rank, rp.points])
            args += [rp.player, read, _dumps(s.to_dict()), pack(s), history, "1" if absent else "0"]
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

    async def apply(
        self, arena_id: str, race: str, rows: Sequence[Mapping[str, Any]], berserked: Collection[str] = ()
    ) -> Applied:
        """Apply a finished race's ranking rows, exactly once (any process, any number of times);
        ``berserked``: its players who berserked, as the race says (``prepare``)."""
        for _ in range(10):
            prepared = await self.prepare(arena_id, race, rows, berserked)
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

    async def history(self, arena_id: str, player: str, latest: int = 0) -> list[tuple[str, int, int]]:
        """``player``'s races in this arena, oldest first: (race, rank, points); only the
        ``latest`` ones if given."""
        raw = await self.r.lrange(keys.history(arena_id, player), -latest if latest else 0, -1)
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

    async def counts(self, arena_ids: Sequence[str]) -> list[int]:
        """``count`` of each of ``arena_ids``, in one non-transactional pipeline."""
        if not arena_ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for arena_id in arena_ids:
            pipe.zcard(keys.board(arena_id))
        return [int(n) for n in await pipe.execute()]

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
            [self.clock(), arena.grace_ms + self.countdown_ms],
        )
        return _s(out[0])

    async def final(self, arena_id: str) -> list[Row] | None:
        """The permanent final standings, once finalized."""
        raw = await self.r.get(keys.final(arena_id))
        if raw is None:
            return None
        return [Row(int(e["rank"]), Standing.from_dict(e["standing"])) for e in json.loads(_s(raw))]

    async def record_podium(self, arena_id: str) -> list[Podium]:
        """Write the podium of a finalized arena into each of its players' records (the
        first ``PODIUM`` places with points; idempotent: any process, any number of times),
        then mark the arena's meta. Returns the podium (empty before finalization)."""
        info = await self.get(arena_id)
        rows = await self.final(arena_id)
        if info is None or rows is None:
            return []
        a = info.arena
        podium = []
        for r in rows:
            if r.rank <= PODIUM and r.standing.points > 0:
                place = Podium(a.id, a.name, a.game, a.ends, r.rank, r.standing.points, len(rows))
                player = r.standing.player
                await self.r.hset(keys.podiums(player), a.id, _dumps(place.to_dict()))
                if await self.r.hlen(keys.podiums(player)) > PODIUMS_KEPT:
                    older = (await self.podiums(player))[PODIUMS_KEPT:]
                    if older:
                        await self.r.hdel(keys.podiums(player), *(p.arena for p in older))
                podium.append(place)
        await self.r.hset(keys.meta(arena_id), "podium", 1)
        return podium

    async def podiums(self, player: str) -> list[Podium]:
        """``player``'s podium places in finished arenas (the latest PODIUMS_KEPT), the latest
        first."""
        raw = await self.r.hgetall(keys.podiums(player))
        out = [Podium.from_dict(json.loads(_s(v))) for v in raw.values()]
        return sorted(out, key=lambda p: (-p.ends, p.arena))
