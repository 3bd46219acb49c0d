"""Arenas on the wire (docs/protocol.md §5a): list, get, join, withdraw, standings, live updates.

``install(service, store)`` plugs arenas into a running race service the way
the daily challenge does (server/daily/handlers.py): request handlers, an end
hook that applies an arena race's ranking (exactly once: the store's
scripts), a bus hook for the arenas' live channels, and the per-process arena
loop (server/handlers/arena_loop.py) that pairs free players into races.

Live standings are coalesced: a change only marks its arena dirty; every
``arena_update_ms`` the watched arenas that changed (or whose featured race
changed) are read once per (player, top, around) and sent as ``arena_update``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from protocol import messages as m
from protocol.messages import ErrorCode
from protocol.rules import GAMES

from ..arena import Arena, ArenaError, ArenaInfo, ArenaStore, Board, Row, validate
from ..arena.records import Podium
from ..arena.schedule import (
    HOUR_MS,
    LISTED_AHEAD_MS,
    LISTED_PAST_MS,
    LISTED_PER_STATUS,
    LISTED_READS,
    MAX_DURATION_MS,
    UPCOMING_PER_RULE,
    check_start,
    listing_cut,
    scheduled,
    status,
    upcoming,
)
from ..core.berserk import berserk
from ..core.races import RaceError
from .arena_loop import ArenaLoop, berserk_players
from .lobby import snapshot_reply

if TYPE_CHECKING:  # pragma: no cover
    from ..core.races import Race
    from ..core.session import Session as Conn
    from ..service import Service

log = logging.getLogger("solrace.arena")

DEFAULT_TOP, DEFAULT_AROUND = 10, 2
#: Most arenas one connection watches at once (``arena_standings`` with ``watch``): each
#: watched arena costs this process a pub/sub channel and a read every update pass. One
#: more is refused with ``too-many-races`` (like ``spectate`` and leaderboard watches
#: beyond theirs); ``arena_unwatch`` or the disconnect frees a place.
MAX_ARENA_WATCHES = 8
#: A profile's podium places listed, the latest (as its `races`, the latest 20).
PODIUMS_LISTED = 20
#: Most of a player's finished races in one arena an ``arena`` reply lists (the latest): a
#: day-long arena of short races can hold thousands, and every reply sent them all. Their
#: standings row counts them all.
RACES_LISTED = 100
# Standings reads in flight at once during a live update pass (bounded: they share the
# process's Redis connection pool with the races).
UPDATE_READS_AT_ONCE = 32
#: Finalized arenas whose final standings this process keeps parsed, the latest asked for:
#: the record never changes once written, and reading it for every `arena_standings` took
#: the event loop ~120 ms an arena of 10,000 players (1.5 MB of JSON).
FINALS_KEPT = 4


def final_board(rows: list[Row], player: str, top: int, around: int) -> Board:
    """The frozen standings as a watcher sees them: the top, and ``player``'s neighbourhood."""
    mine = next((i for i, r in enumerate(rows) if r.standing.player == player), None)
    near = tuple(rows[max(0, mine - around) : mine + around + 1]) if mine is not None else ()
    return Board(len(rows), tuple(rows[:top]), rows[mine] if mine is not None else None, near)


def _race_error(exc: ArenaError) -> RaceError:
    known = {c.value for c in ErrorCode}
    code = ErrorCode(exc.code) if exc.code in known else ErrorCode.BAD_ARENA
    return RaceError(code, exc.message)


def podium(p: Podium) -> m.ArenaPodium:
    return m.ArenaPodium(
        arena=p.arena, name=p.name, game=p.game, ends=p.ends, rank=p.rank, points=p.points, players=p.players
    )


def row(r: Row, accounts: Mapping[str, str]) -> m.ArenaRow:
    """A standings row on the wire; `accounts`: the players known to be accounts -> their
    account names (a guest who joined and claimed an account since shows by that name)."""
    s = r.standing
    return m.ArenaRow(
        rank=r.rank,
        player=s.player,
        name=accounts.get(s.player, s.name),
        points=s.points,
        races=s.races,
        wins=s.wins,
        streak=s.streak,
        fire=s.fire,
        account=s.player in accounts,
    )


def board_players(b: Board) -> list[str]:
    """The players of a board's rows (top, me, around)."""
    rows = [*b.top, *b.around, *([b.me] if b.me else [])]
    return [r.standing.player for r in rows]


class ArenaHandlers:
    def __init__(self, service: Service, store: ArenaStore) -> None:
        self.service = service
        self.store = store
        # arena -> local connection -> (top, around) it asked for
        self.watchers: dict[str, dict[Conn, tuple[int, int]]] = {}
        # local connection -> the arenas it watches (at most MAX_ARENA_WATCHES)
        self.watching: dict[Conn, set[str]] = {}
        # arenas whose standings changed since last sent to their watchers (the loop adds too)
        self.dirty: set[str] = set()
        self.loop = ArenaLoop(service, store, self.dirty)
        # arena -> (featured, count, status, final) last sent
        self.sent: dict[str, tuple[str | None, int, str, bool]] = {}
        # finalized arena -> its final standings (at most FINALS_KEPT, the latest used last)
        self.finals: dict[str, list[Row]] = {}

    def install(self) -> None:
        s = self.service
        s.handlers.update(
            {
                m.Arenas: self.arenas,
                m.ArenaGet: self.get,
                m.ArenaJoin: self.join,
                m.ArenaWithdraw: self.withdraw,
                m.ArenaStandings: self.standings,
                m.ArenaUnwatch: self.unwatch,
                m.ArenaCreate: self.create,
                m.ArenaBerserk: self.berserk,
            }
        )
        profile = s.handlers.get(m.Profile)
        if profile is not None:  # accounts exist: their profiles show their arena podiums
            s.handlers[m.Profile] = self._with_podiums(profile)
        s.end_hooks.append(self.on_end)
        s.disconnect_hooks.append(self.on_disconnect)
        s.bus_hooks[b"{arena:"] = self.on_bus
        s.spawn(self.loop.run())
        s.spawn(self.updates())

    def _with_podiums(self, profile: Any) -> Any:
        async def with_podiums(conn: Conn, msg: m.Profile) -> m.ProfileData:
            data: m.ProfileData = await profile(conn, msg)
            places = (await self.store.podiums(data.player))[:PODIUMS_LISTED]
            return msgspec.structs.replace(data, arenas=[podium(p) for p in places] or None)

        return with_podiums

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except ArenaError as exc:
            raise _race_error(exc) from None

    async def _info(self, arena_id: str) -> ArenaInfo:
        info = await self.store.get(arena_id)
        if info is None and await self._ensure(arena_id):
            info = await self.store.get(arena_id)
        if info is None:
            raise RaceError(ErrorCode.NO_ARENA, f"no arena {arena_id!r}")
        return info

    async def _ensure(self, arena_id: str) -> bool:
        """Create ``arena_id`` if it is a scheduled arena of the next LISTED_AHEAD_MS (one the
        list shows before the servers create it); idempotent, the arena the schedule makes."""
        now = self.service.now_ms()
        arena = scheduled(self.loop.schedule, arena_id, now, now + LISTED_AHEAD_MS)
        if arena is None:
            return False
        await self.store.create(arena)
        return True

    async def summary(self, info: ArenaInfo, now: int) -> m.ArenaSummary:
        return self.planned(
            info.arena, now, final=info.finalized is not None, players=await self.store.count(info.arena.id)
        )

    # --- requests ------------------------------------------------------------------

    async def arenas(self, conn: Conn, msg: m.Arenas) -> m.ArenaListData:
        now = self.service.now_ms()
        # Bounded reads of the index: the soonest created arenas starting within the hour, and
        # the latest started of the two days looked back. One more than kept tells a cut.
        soon = await self.store.first_starting(now + 1, now + HOUR_MS, LISTED_PER_STATUS + 1)
        started = await self.store.last_started(
            now - LISTED_PAST_MS - MAX_DURATION_MS, now + 1, LISTED_READS + 1
        )
        more = len(started) > LISTED_READS
        # the scheduled arenas of the next day not listed yet: created early (asked for or
        # joined) as they are, the others as the schedule will make them, with no players
        ahead = upcoming(self.loop.schedule, now, now + LISTED_AHEAD_MS, UPCOMING_PER_RULE)
        ids = list(dict.fromkeys([*soon, *started[:LISTED_READS], *(a.id for a in ahead)]))
        made = {i.arena.id: i for i in await self.store.get_many(ids) if i is not None}
        listed = [(i.arena, i) for i in made.values()] + [(a, None) for a in ahead if a.id not in made]
        kept, cut = listing_cut(listed, now, LISTED_PAST_MS, LISTED_PER_STATUS)
        more = more or cut
        created = [a.id for a, info in kept if info is not None]
        players = dict(zip(created, await self.store.counts(created), strict=True))
        out = [
            self.planned(
                a, now, final=info is not None and info.finalized is not None, players=players.get(a.id, 0)
            )
            for a, info in kept
        ]
        out.sort(key=lambda s: (s.starts, s.id))
        return m.ArenaListData(rid=msg.rid, now=now, arenas=out, more=more)

    @staticmethod
    def planned(a: Arena, now: int, *, final: bool = False, players: int = 0) -> m.ArenaSummary:
        """The summary of an arena: by default one of the schedule's not created yet."""
        return m.ArenaSummary(
            id=a.id,
            game=a.game,
            name=a.name,
            starts=a.starts,
            ends=a.ends,
            seats=a.seats,
            berserk=a.berserk,
            time_limit_s=a.time_limit_s,
            status=status(a, now),
            final=final,
            players=players,
        )

    async def arena_data(self, conn: Conn, rid: int | None, arena_id: str) -> m.ArenaData:
        info = await self._info(arena_id)
        now = self.service.now_ms()
        pid = conn.player
        # One read of the player's race, not of every race formed (half the arena's players).
        current = await self.store.race_of(arena_id, pid)
        return m.ArenaData(
            rid=rid,
            now=now,
            arena=await self.summary(info, now),
            joined=await self.store.is_joined(arena_id, pid),
            race=current,
            races=[
                m.ArenaRace(race=r, rank=k, points=p)
                for r, k, p in await self.store.history(arena_id, pid, RACES_LISTED)
            ],
            featured=await self.store.featured(arena_id),
        )

    async def get(self, conn: Conn, msg: m.ArenaGet) -> m.ArenaData:
        return await self.arena_data(conn, msg.rid, msg.arena)

    async def join(self, conn: Conn, msg: m.ArenaJoin) -> m.ArenaData:
        try:
            await self.store.join(msg.arena, conn.player, conn.name)
        except ArenaError as exc:  # a listed scheduled arena not created yet is created
            if exc.code != "no-arena" or not await self._ensure(msg.arena):
                raise _race_error(exc) from None
            await self._call(self.store.join(msg.arena, conn.player, conn.name))
        self.dirty.add(msg.arena)
        return await self.arena_data(conn, msg.rid, msg.arena)

    async def withdraw(self, conn: Conn, msg: m.ArenaWithdraw) -> m.ArenaData:
        await self._info(msg.arena)
        await self.store.withdraw(msg.arena, conn.player)
        return await self.arena_data(conn, msg.rid, msg.arena)

    async def berserk(self, conn: Conn, msg: m.ArenaBerserk) -> m.RaceSnapshot:
        """Half the clock of the player's arena race, before it starts. The race is changed
        first (it refuses once started): a berserk recorded for scoring always had half the clock.
        A record that fails after the race took it scores all the same: the race's own flags
        count when it is applied (arena_loop.py `berserk_players`)."""
        info = await self._info(msg.arena)
        pid = conn.player
        formed = await self.store.formed_race(msg.arena, msg.race)
        if not info.arena.berserk:
            raise RaceError(ErrorCode.BAD_ARENA, f"arena {msg.arena!r} does not allow berserk")
        if formed is None or pid not in formed["players"]:
            raise RaceError(ErrorCode.BAD_ARENA, f"race {msg.race!r} is not your race in this arena")
        race = await self.service.lobby.mutate(msg.race, lambda r, _now: berserk(r, pid))
        if not await self.store.berserk(msg.arena, msg.race, pid):
            log.warning("arena %s: berserk of %s in race %s not recorded", msg.arena, pid, msg.race)
        return snapshot_reply(msg, race, pid)

    async def create(self, conn: Conn, msg: m.ArenaCreate) -> m.ArenaData:
        if not self.service.settings.arena_create:
            raise RaceError(ErrorCode.BAD_ARENA, "this server does not let clients create arenas")
        arena = Arena(
            id=msg.arena,
            game=msg.game,
            starts=self.service.now_ms() if msg.starts is None else msg.starts,
            duration_ms=msg.duration_ms,
            seats=msg.seats or 2,
            berserk=msg.berserk is not False,
            time_limit_s=msg.time_limit_s or 300,
            name=msg.name or msg.arena,
        )
        await self._call(self._create(arena))
        return await self.arena_data(conn, msg.rid, msg.arena)

    async def _create(self, arena: Arena) -> None:
        validate(arena, list(GAMES))
        check_start(arena, self.service.now_ms())
        # The schedule's ids (KIND-GAME-MINUTES) are listed and joinable before the servers
        # create them: a client taking one first would replace the arena everyone expects.
        for rule in self.loop.schedule.rules:
            if arena.id.startswith(f"{rule.kind}-"):
                raise ArenaError("bad-arena", f"arena ids beginning {rule.kind}- are the schedule's")
        if not await self.store.create(arena):
            raise ArenaError("bad-arena", f"arena {arena.id!r} exists")

    async def board(self, arena_id: str, player: str, top: int, around: int) -> tuple[str, bool, Board]:
        info = await self._info(arena_id)
        final = info.finalized is not None
        if final:
            b = final_board(await self.final_rows(arena_id), player, top, around)
        else:
            b = await self.store.standings(arena_id, top, player, around)
        return status(info.arena, self.service.now_ms()), final, b

    async def final_rows(self, arena_id: str) -> list[Row]:
        """The final standings of a finalized arena, read once while among the FINALS_KEPT
        latest asked for."""
        rows = self.finals.pop(arena_id, None)
        if rows is None:
            rows = await self.store.final(arena_id)
            if rows is None:  # not finalized: nothing to keep
                return []
        self.finals[arena_id] = rows
        while len(self.finals) > FINALS_KEPT:
            del self.finals[next(iter(self.finals))]
        return rows

    async def standings(self, conn: Conn, msg: m.ArenaStandings) -> m.ArenaStandingsData:
        top = DEFAULT_TOP if msg.top is None else msg.top
        around = DEFAULT_AROUND if msg.around is None else msg.around
        if msg.watch:
            self._check_watch_limit(conn, msg.arena)  # refused before any read
        st, final, b = await self.board(msg.arena, conn.player, top, around)
        if msg.watch:
            # Subscribed only once the arena is known (the board was read), and within the
            # limit, checked again with no await before the add (requests run concurrently).
            self._check_watch_limit(conn, msg.arena)
            conns = self.watchers.setdefault(msg.arena, {})
            if not conns:
                self.service.bus.subscribe(self.loop.channel(msg.arena))
            conns[conn] = (top, around)
            self.watching.setdefault(conn, set()).add(msg.arena)
        featured = await self.store.featured(msg.arena)
        # Read now, not kept with the standings: a guest who claims an account meanwhile is one.
        accounts = await self.service.store.account_names(board_players(b))
        return m.ArenaStandingsData(
            rid=msg.rid,
            arena=msg.arena,
            status=st,
            final=final,
            count=b.count,
            top=[row(r, accounts) for r in b.top],
            me=row(b.me, accounts) if b.me else None,
            around=[row(r, accounts) for r in b.around],
            featured=featured,
        )

    async def unwatch(self, conn: Conn, msg: m.ArenaUnwatch) -> m.Ok:
        self._drop_watch(conn, msg.arena)
        return m.Ok(rid=msg.rid)

    def _check_watch_limit(self, conn: Conn, arena_id: str) -> None:
        """Refuse a new watch past MAX_ARENA_WATCHES (an arena watched already may be asked
        again: it changes its top and around)."""
        mine = self.watching.get(conn, set())
        if arena_id not in mine and len(mine) >= MAX_ARENA_WATCHES:
            raise RaceError(
                ErrorCode.TOO_MANY_RACES,
                f"this connection already watches {MAX_ARENA_WATCHES} arenas: arena_unwatch one first",
            )

    def _drop_watch(self, conn: Conn, arena_id: str) -> None:
        mine = self.watching.get(conn)
        if mine is not None:
            mine.discard(arena_id)
            if not mine:
                del self.watching[conn]
        conns = self.watchers.get(arena_id)
        if conns is None:
            return
        conns.pop(conn, None)
        if not conns:
            del self.watchers[arena_id]
            self.sent.pop(arena_id, None)
            self.service.bus.unsubscribe(self.loop.channel(arena_id))

    async def on_disconnect(self, conn: Conn) -> None:
        for arena_id in list(self.watching.get(conn, ())):
            self._drop_watch(conn, arena_id)

    # --- hooks ---------------------------------------------------------------------

    async def on_end(self, race: Race, logs: dict[str, list[tuple[int, int, str]]]) -> None:
        """A race ended: if it is an arena's, apply its ranking (exactly once)."""
        await self.loop.race_ended(race.race, list(race.ranking or []), berserk_players(race))

    def on_bus(self, channel: bytes, data: bytes) -> None:
        """An arena's standings changed (a race applied, in any process)."""
        text = channel.decode()
        if text.endswith(":live"):
            self.dirty.add(text[len("{arena:") : -len("}:live")])

    # --- live updates --------------------------------------------------------------

    async def updates(self) -> None:
        """Every ARENA_UPDATE ms: one coalesced update per watched arena that changed."""
        svc = self.service
        while not svc.stopping:
            await asyncio.sleep(svc.settings.arena_update_ms / 1000)
            for arena_id in list(self.watchers):
                try:
                    await self._update(arena_id)
                except Exception as exc:
                    svc.failed(f"arena {arena_id}: live update failed", exc)

    async def _update(self, arena_id: str) -> None:
        # Results come over the bus from every process; joins and pairings elsewhere do not,
        # nor does a status moving on (the start, the end, the final record, on any process):
        # those are looked at every time, and an update goes only if one of them changed.
        info = await self._info(arena_id)
        st = status(info.arena, self.service.now_ms())
        final = info.finalized is not None
        featured = await self.store.featured(arena_id)
        count = await self.store.count(arena_id)
        seen = (featured, count, st, final)
        if arena_id not in self.dirty and seen == self.sent.get(arena_id):
            return
        self.dirty.discard(arena_id)
        self.sent[arena_id] = seen
        # Once final its standings are read once per pass; each watcher's own rows are read
        # UPDATE_READS_AT_ONCE at a time, not one round trip after another (with hundreds of
        # watchers the serial reads made the pass outlast ARENA_UPDATE).
        final_rows = await self.final_rows(arena_id) if final else []
        watching = list(self.watchers.get(arena_id, {}).items())
        boards: dict[tuple[str, int, int], Board] = {}

        async def read(k: tuple[str, int, int]) -> None:
            player, top, around = k
            if final:
                boards[k] = final_board(final_rows, player, top, around)
            else:
                boards[k] = await self.store.standings(arena_id, top, player, around)

        wanted = list(dict.fromkeys((conn.player, top, around) for conn, (top, around) in watching))
        for i in range(0, len(wanted), UPDATE_READS_AT_ONCE):
            await asyncio.gather(*(read(k) for k in wanted[i : i + UPDATE_READS_AT_ONCE]))
        # Which players are accounts: one read for every row of the pass, not one per watcher.
        accounts = await self.service.store.account_names(
            p for b in boards.values() for p in board_players(b)
        )
        frames: dict[tuple[str, int, int], bytes] = {}
        for k, b in boards.items():
            frames[k] = m.encode(
                m.ArenaUpdate(
                    arena=arena_id,
                    status=st,
                    final=final,
                    count=b.count,
                    top=[row(r, accounts) for r in b.top],
                    me=row(b.me, accounts) if b.me else None,
                    around=[row(r, accounts) for r in b.around],
                    featured=featured,
                )
            )
        for conn, (top, around) in watching:
            conn.send(frames[(conn.player, top, around)])


def install(service: Service, store: ArenaStore) -> ArenaHandlers:
    h = ArenaHandlers(service, store)
    h.install()
    return h


__all__ = ["ArenaHandlers", "install"]
