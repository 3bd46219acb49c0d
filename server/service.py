"""The race service: what each request does, the move path, fan-out, timers.

The gateway decodes frames and calls the handlers here; each handler either
returns the reply message or raises `RaceError` (the gateway turns it into
an `error`). Everything authoritative goes through `store` (Redis); this
process keeps only caches:

- `games[(race, player)]`: the player's `Game` for validating moves without
  Redis. It may run ahead of Redis while moves are in flight (they are
  applied in place and sent at once); any refusal from Redis drops it and
  the next move reloads it.
- `local[race]`: the local connections of a race (members, spectators), its
  public facts (status, version, seed for the start frames) and timers.
  Each race with a local connection has its pub/sub channel subscribed.

Fan-out: every race event is published by a script (moves) or a commit
(everything else) on the race's channel; each process forwards the
published bytes unchanged to its local members (not a progress event to its
own mover) and spectators, in version order and once each (`Local.sent`).
The progress of a move made on this process comes back in the script's
reply: when it is the race's next version it goes out to the local rivals
and spectators at once, without waiting for its copy on the bus (which is
then skipped); otherwise the bus copy brings it, in order. After the pub/sub
connection comes back (Redis restart, network), each local race is
gap-filled from its event stream (`on_bus_reconnect`).

Timers: every process runs a sweeper over `races:timers` (countdown ends,
deadlines), plus exact local timers for races it knows. Transitions are
compare-and-set commits, so several processes racing to end the same race
end it once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol import messages as m
from protocol import rules

from . import storage as S
from .config import Settings
from .core import races as R
from .core.frames import progress
from .core.races import RaceError
from .metrics import Metrics
from .net.broadcast import broadcast_latest
from .net.conn import Conn

log = logging.getLogger("solrace.service")

encode = m.encode


class _Head(msgspec.Struct):
    """The few fields of a published event the fan-out needs (the rest is ignored)."""

    t: str
    ver: int = 0
    player: str = ""
    race: str = ""
    status: str = ""


_head = msgspec.msgpack.Decoder(_Head)
_snap = msgspec.msgpack.Decoder(m.RaceSnapshot)


class Entry:
    """The cached game of one player in one running race (see module doc)."""

    __slots__ = ("game", "n", "status", "last", "inflight", "idle", "pos")

    def __init__(self, game: rules.Game, n: int, status: str, last: str) -> None:
        self.game = game
        self.pos = S.PositionCache(game)  # its compact encoding, re-encoded pile by pile
        self.n = n
        self.status = status
        self.last = last  # the last move applied (or in flight): spots retried duplicates
        self.inflight = 0
        self.idle: list[asyncio.Future] = []  # waiters for inflight == 0


@dataclass(eq=False)
class Local:
    """What this process knows and holds for one race with local connections."""

    rid: str
    game: str
    status: str
    ver: int
    seed: str
    pids: list[str]
    starts_at: int | None
    deadline: int | None
    total: int
    commitment: str
    members: dict[str, set[Conn]] = field(default_factory=dict)
    spectators: set[Conn] = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None
    timer_at: int | None = None
    dirty: bool = True  # positions changed since the last spectator sample
    samples: deque = field(default_factory=deque)  # (taken_at, boards) newest last
    boards_frame: bytes | None = None  # the boards frame last sent to spectators
    boards_at: int | None = None
    filling: list[bytes] | None = None  # events held back while a gap fill runs (on_bus_reconnect)
    sent: int = 0  # the version of the last event forwarded to the local connections (set at creation)


class Service:
    def __init__(self, settings: Settings, store: S.Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.games: dict[tuple[str, str], Entry] = {}
        self.local: dict[str, Local] = {}
        self.players: dict[str, set[Conn]] = {}
        self.bus = store.subscriber(self.on_bus, self.on_bus_reconnect)
        self.ticking: set[str] = set()
        self.tasks: set[asyncio.Task] = set()
        self.offset_ms = 0  # Redis clock - local clock
        self.stopping = False
        # Where race seeds come from. Tests may replace it to race a known deal;
        # nothing else should (the seed must be unpredictable).
        self.seed_factory: Callable[[], str] = rules.random_seed
        self.spectate_guard: Callable[[Conn, R.Race], Awaitable[None]] | None = None  # daily: daily-open
        # Daily challenges (server/daily/handlers.py) plug in here; races need none of it.
        self.replay_guard: Callable[[Conn, R.Race], Awaitable[None]] | None = None  # daily: daily-open
        self.end_hooks: list[Callable[[R.Race, dict[str, list]], Awaitable[None]]] = []  # (race, logs)
        self.disconnect_hooks: list[Callable[[Conn], Awaitable[None]]] = []
        self.bus_hooks: dict[bytes, Callable[[bytes, bytes], None]] = {}  # channel prefix -> handler
        self.handlers: dict[type, Callable[[Conn, Any], Awaitable[Any]]] = {
            m.Ping: self.ping,
            m.Create: self.create,
            m.Join: self.join,
            m.Leave: self.leave,
            m.Ready: self.ready,
            m.Start: self.host_start,
            m.Quick: self.quick,
            m.Unqueue: self.unqueue,
            m.Finish: self.finish,
            m.Resync: self.resync,
            m.Replay: self.replay,
            m.Races: self.races,
            m.Spectate: self.spectate,
            m.Unspectate: self.unspectate,
        }

    # --- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        server_now = await self.store.time_ms()
        self.offset_ms = server_now - int(time.time() * 1000)
        await self.bus.start()
        self.spawn(self._sweeper())
        self.spawn(self._boards_loop())

    async def stop(self) -> None:
        self.stopping = True
        for loc in self.local.values():
            if loc.timer:
                loc.timer.cancel()
        for t in list(self.tasks):
            t.cancel()
        for t in list(self.tasks):
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass
        await self.bus.close()

    def now_ms(self) -> int:
        """An estimate of the Redis clock (authoritative times come from Redis TIME)."""
        return int(time.time() * 1000) + self.offset_ms

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # --- connections --------------------------------------------------------------------

    async def hello(self, conn: Conn, msg: m.Hello) -> m.Welcome:
        if msg.v not in m.SUPPORTED_VERSIONS:
            raise RaceError(
                "bad-version",
                f"protocol version {msg.v} is not supported",
                supported=list(m.SUPPORTED_VERSIONS),
            )
        if msg.name is not None and len(msg.name) > self.settings.max_name:
            raise RaceError(
                "bad-message", f"`name`: at most {self.settings.max_name} characters", field="name"
            )
        if msg.token is not None:
            found = await self.store.resume_session(msg.token, msg.name)
            if found is None:
                raise RaceError("bad-token", "unknown or expired session token")
            pid, name = found
            token = msg.token
        else:
            name = msg.name or f"player-{secrets.token_hex(2)}"
            pid, token = await self.store.new_session(name)
        conn.pid, conn.name = pid, name
        self.players.setdefault(pid, set()).add(conn)
        self.bus.subscribe(S.player_channel(pid))
        rids = await self.store.player_races(pid)
        for rid in rids:
            _now, race = await self.store.load_race(rid)
            if race is not None and race.status != R.FINISHED:
                self._add_member(conn, race)
        return m.Welcome(
            rid=msg.rid,
            v=m.PROTOCOL_VERSION,
            player=pid,
            name=name,
            token=token,
            races=rids,
            time=self.now_ms(),
            limits=self.settings.limits(),
        )

    async def disconnect(self, conn: Conn) -> None:
        pid = conn.pid
        if pid is None:
            return
        conns = self.players.get(pid)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.players[pid]
                self.bus.unsubscribe(S.player_channel(pid))
        for game, seats in list(conn.quick):
            try:
                await self.store.quick_remove(game, seats, pid)
            except Exception:
                log.warning("could not leave the quick-match queue", exc_info=True)
        for rid in list(conn.races):
            self._remove_member(conn, rid)
        for rid in list(conn.spectating):
            await self._unspectate(conn, rid)
        for hook in self.disconnect_hooks:
            await hook(conn)

    # --- local race registry -----------------------------------------------------------------

    def _ensure_local(self, race: R.Race) -> Local:
        loc = self.local.get(race.race)
        if loc is None:
            loc = Local(
                rid=race.race,
                game=race.game,
                status=race.status,
                ver=race.ver,
                seed=race.seed,
                pids=[p.player for p in race.players],
                starts_at=race.starts_at,
                deadline=race.deadline,
                total=race.total,
                commitment=race.commitment,
                sent=race.ver,
            )
            self.local[race.race] = loc
            self.bus.subscribe(S.race_channel(race.race))
        elif race.ver > loc.ver:
            self._update_local(
                loc, race.status, race.ver, [p.player for p in race.players], race.starts_at, race.deadline
            )
        self._arm_timer(loc)
        return loc

    def _update_local(
        self, loc: Local, status: str, ver: int, pids: list[str], starts_at: int | None, deadline: int | None
    ) -> None:
        loc.status, loc.ver, loc.pids = status, ver, pids
        loc.starts_at, loc.deadline = starts_at, deadline

    def _drop_local_if_idle(self, loc: Local) -> None:
        if loc.members or loc.spectators:
            return
        self._drop_local(loc)

    def _drop_local(self, loc: Local) -> None:
        if self.local.get(loc.rid) is loc:
            del self.local[loc.rid]
        if loc.timer:
            loc.timer.cancel()
        self.bus.unsubscribe(S.race_channel(loc.rid))
        for pid in loc.pids:
            self.games.pop((loc.rid, pid), None)

    def _add_member(self, conn: Conn, race: R.Race) -> None:
        loc = self._ensure_local(race)
        loc.members.setdefault(conn.pid, set()).add(conn)  # type: ignore[arg-type]
        conn.races.add(race.race)

    def _remove_member(self, conn: Conn, rid: str) -> None:
        conn.races.discard(rid)
        loc = self.local.get(rid)
        if loc is None:
            return
        conns = loc.members.get(conn.pid)  # type: ignore[arg-type]
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del loc.members[conn.pid]  # type: ignore[arg-type]
        self._drop_local_if_idle(loc)

    def _arm_timer(self, loc: Local) -> None:
        """An exact local timer for the next transition (the sweeper is the backstop)."""
        at = loc.starts_at if loc.status == R.COUNTDOWN else loc.deadline if loc.status == R.RUNNING else None
        if at == loc.timer_at:
            return
        if loc.timer:
            loc.timer.cancel()
            loc.timer = None
        loc.timer_at = at
        if at is not None and not self.stopping:
            delay = max(0.0, (at - self.now_ms()) / 1000.0)
            loop = asyncio.get_running_loop()
            loc.timer = loop.call_later(delay, lambda rid=loc.rid: self.spawn(self.tick(rid)))

    # --- the bus: published race events -> local sockets --------------------------------------

    def on_bus(self, channel: bytes, data: bytes) -> None:
        if channel.startswith(b"race:"):
            loc = self.local.get(channel[5:].decode())
            if loc is None:
                return
            if loc.filling is not None:  # a gap fill is running: forward after it, in order
                loc.filling.append(data)
                return
            self._fan_out(loc, data)
        elif channel.startswith(b"player:"):
            head = _head.decode(data)
            if head.t == "seated":
                self.spawn(self._seated(channel[7:].decode(), head.race))
        else:
            for prefix, hook in self.bus_hooks.items():
                if channel.startswith(prefix):
                    hook(channel, data)

    def _fan_out(self, loc: Local, data: bytes) -> None:
        """Forward one published race event to this process's members and spectators.

        Events go out in version order, each once: `loc.sent` is the version
        last forwarded. The progress of a move made here was usually
        forwarded already, when Redis answered the move (`_send_move`), and
        is skipped when it comes back on the bus.
        """
        head = _head.decode(data)
        ver = head.ver
        if ver:
            if ver <= loc.sent:
                return
            loc.sent = ver
            if ver > loc.ver:
                loc.ver = ver
        if head.t == "progress":
            # A timeout has no ack: the stopped player gets its progress too (no version hole).
            self._progress_out(loc, data, None if head.status == R.TIMEOUT else head.player)
            return
        for conns in list(loc.members.values()):
            for c in list(conns):
                c.send(data)
        for c in list(loc.spectators):
            c.send(data)
        if head.t == "race":
            self._on_race_event(loc, data)
        elif head.t == "end":
            self._on_end(loc)

    @staticmethod
    def _progress_out(loc: Local, data: bytes, mover: str | None) -> None:
        """A progress event to every local member but its mover (who has the ack) and spectator."""
        for pid, conns in loc.members.items():
            if pid != mover:
                for c in conns:
                    c.send(data)
        for c in loc.spectators:
            c.send(data)
        loc.dirty = True

    def on_bus_reconnect(self) -> None:
        """Gap fill (DESIGN.md §6): pub/sub was lost (Redis restart, network), events may be missing.

        For each local race, live events are held back while its event
        stream is read from the last version forwarded; then the missed
        events and the held ones go out in version order, each once. If the
        stream no longer reaches back that far, the current snapshot goes out
        instead (its version jump makes clients resync).
        """
        for loc in list(self.local.values()):
            if loc.filling is None:
                loc.filling = []
                self.spawn(self._refresh(loc))
        # A quick-match "seated" notice (player channel) may have been lost too: look the seats up.
        for pid in {c.pid for conns in self.players.values() for c in conns if c.quick}:
            self.spawn(self._recheck_seats(pid))  # type: ignore[arg-type]

    async def _recheck_seats(self, pid: str) -> None:
        for attempt in range(6):  # a few tries: pooled connections may still be stale
            try:
                for rid in await self.store.player_races(pid):
                    await self._seated(pid, rid)
                return
            except Exception:
                if attempt == 5:
                    log.warning(
                        "could not look up the seats of %s after a pub/sub reconnect", pid, exc_info=True
                    )
                    return
                await asyncio.sleep(0.05 * 2**attempt)

    async def _refresh(self, loc: Local) -> None:
        rid = loc.rid
        fill: list[bytes] = []
        try:
            # A few tries: right after Redis comes back, pooled connections may still be stale.
            for attempt in range(6):
                try:
                    _now, race = await self.store.load_race(rid)
                    if race is not None and race.ver > loc.sent:
                        frames = await self.store.events_since(rid, loc.sent)
                        fill = frames if frames is not None else [encode(m.RaceSnapshot(**R.snapshot(race)))]
                    break
                except Exception:
                    if attempt == 5:
                        raise
                    await asyncio.sleep(0.05 * 2**attempt)
        except Exception:
            log.warning("gap fill of race %s failed; clients resync on the version jump", rid, exc_info=True)
        finally:
            held, loc.filling = loc.filling or [], None
            for data in fill + held:
                if self.local.get(rid) is not loc:
                    break  # the race ended (or was dropped) during the fill
                self._fan_out(loc, data)  # skips what was forwarded already

    def _on_race_event(self, loc: Local, data: bytes) -> None:
        snap = _snap.decode(data)
        was = loc.status
        self._update_local(
            loc,
            snap.status,
            max(loc.ver, snap.ver),
            [p.player for p in snap.players],
            snap.starts_at,
            snap.deadline,
        )
        loc.dirty = True
        if snap.status == R.RUNNING and was != R.RUNNING:
            self._send_start(loc, snap)
        self._arm_timer(loc)

    def _send_start(self, loc: Local, snap: m.RaceSnapshot) -> None:
        """Each local player gets their own view of the (same) deal; warm the move cache."""
        if not loc.members:
            return
        g = rules.deal(loc.game, loc.seed)
        frame = encode(
            m.Started(
                race=loc.rid,
                ver=snap.ver,
                starts_at=snap.starts_at or 0,
                deadline=snap.deadline or 0,
                commitment=snap.commitment,
                total=snap.total,
                view=g.view_text(),
                n=0,
            )
        )
        for pid, conns in loc.members.items():
            key = (loc.rid, pid)
            if key not in self.games:
                self.games[key] = Entry(g.copy(), 0, R.PLAYING, "")
            for c in conns:
                c.send(frame)

    def _on_end(self, loc: Local) -> None:
        loc.status = R.FINISHED
        for conns in loc.members.values():
            for c in conns:
                c.races.discard(loc.rid)
        for c in loc.spectators:
            c.spectating.discard(loc.rid)
        loc.members.clear()
        loc.spectators.clear()
        self._drop_local(loc)

    async def _seated(self, pid: str, rid: str) -> None:
        """A quick-match group seated this player (maybe by another process)."""
        conns = self.players.get(pid)
        if not conns:
            return
        _now, race = await self.store.load_race(rid)
        if race is None:
            return
        frames = [encode(m.RaceSnapshot(**R.snapshot(race)))]
        if race.status == R.RUNNING:
            # The start went by while the notice was lost (a pub/sub gap): this player's own
            # start, from their stored game.
            pg = (await self.store.load_player(rid, pid)).game
            if pg is not None:
                g = pg.game()
                frames.append(
                    encode(
                        m.Started(
                            race=rid,
                            ver=race.ver,
                            starts_at=race.starts_at or 0,
                            deadline=race.deadline or 0,
                            commitment=race.commitment,
                            total=race.total,
                            view=g.view_text(),
                            n=pg.n,
                        )
                    )
                )
        for c in list(conns):
            if rid not in c.races:
                self._add_member(c, race)
                for f in frames:
                    c.send(f)

    # --- lobby -------------------------------------------------------------------------------------

    async def _seat_limit(self, pid: str) -> None:
        if len(await self.store.player_races(pid)) >= self.settings.max_races_per_player:
            raise RaceError("too-many-races", f"you already hold {self.settings.max_races_per_player} seats")

    def _race_id(self, rid: str) -> str:
        if not S.valid_race_id(rid):
            raise RaceError("no-such-race", "no such race")
        return rid

    async def _mutate(self, rid: str, change: Callable[[R.Race, int], R.Race]) -> R.Race:
        """Load, change with a pure function of races.py, compare-and-set; retry on conflict."""
        for _attempt in range(20):
            now, race = await self.store.load_race(rid)
            if race is None:
                raise RaceError("no-such-race", "no such race")
            new = change(race, now)
            if new is race:
                return race
            new.ver = race.ver + 1
            ttl = self._ttl(new, now)
            try:
                await self.store.commit(race.ver, new, encode(m.RaceSnapshot(**R.snapshot(new))), ttl_ms=ttl)
            except S.Conflict:
                await asyncio.sleep(0.001 * _attempt)
                continue
            if new.status == R.COUNTDOWN and race.status != R.COUNTDOWN:
                await self.store.schedule(rid, new.starts_at)
            return new
        raise RaceError("internal", "the race is too busy, try again")

    def _ttl(self, race: R.Race, now: int) -> int:
        if race.status == R.LOBBY:
            return self.settings.lobby_ttl_s * 1000
        if race.status == R.FINISHED:
            return self.settings.finished_ttl_s * 1000
        return max(0, (race.deadline or now) - now) + 86400 * 1000

    def _reply(self, msg: Any, race: R.Race) -> m.RaceSnapshot:
        return m.RaceSnapshot(rid=getattr(msg, "rid", None), **R.snapshot(race))

    async def ping(self, conn: Conn, msg: m.Ping) -> m.Pong:
        return m.Pong(rid=msg.rid, time=self.now_ms())

    def _check_game(self, game: str) -> rules.GameDef:
        gdef = rules.GAMES.get(game)
        if gdef is None:
            raise RaceError("unknown-game", f"no game {game!r}; known: {', '.join(rules.GAMES)}")
        return gdef

    async def create(self, conn: Conn, msg: m.Create) -> m.RaceSnapshot:
        gdef = self._check_game(msg.game)
        st = self.settings
        if msg.seats > st.max_seats:
            raise RaceError("bad-message", f"`seats`: at most {st.max_seats}", field="seats")
        time_limit_s = st.time_limit_s if msg.time_limit_s is None else msg.time_limit_s
        if not st.time_limit_min_s <= time_limit_s <= st.time_limit_max_s:
            raise RaceError(
                "bad-message",
                f"`time_limit_s`: {st.time_limit_min_s}..{st.time_limit_max_s}",
                field="time_limit_s",
            )
        pid = conn.pid
        assert pid is not None
        await self._seat_limit(pid)
        seed = self.seed_factory()
        now = await self.store.time_ms()
        race = R.new_race(
            race=S.new_race_id(),
            game=gdef.id,
            total=gdef.total,
            seats=msg.seats,
            time_limit_s=time_limit_s,
            private=msg.private,
            host=pid,
            host_name=conn.name,
            now=now,
            seed=seed,
            commitment=rules.seed_commitment(seed),
            rules_version=rules.RULES_VERSION,
            deal_version=rules.DEAL_VERSION,
        )
        return await self._publish_new(conn, msg, race, now)

    async def create_solo(
        self, conn: Conn, game: str, seed: str, time_limit_s: int, *, sealed: bool = False
    ) -> R.Race:
        """A private one-seat race of `conn`'s player on a given seed, counting down at
        once: a daily challenge attempt (server/daily). No reply is sent here."""
        gdef = self._check_game(game)
        pid = conn.pid
        assert pid is not None
        await self._seat_limit(pid)
        now = await self.store.time_ms()
        race = R.new_race(
            race=S.new_race_id(),
            game=gdef.id,
            total=gdef.total,
            seats=1,
            time_limit_s=time_limit_s,
            private=True,
            host=pid,
            host_name=conn.name,
            now=now,
            seed=seed,
            commitment=rules.seed_commitment(seed),
            rules_version=rules.RULES_VERSION,
            deal_version=rules.DEAL_VERSION,
        )
        race.sealed = sealed
        race = R.set_ready(race, pid, True, now, self.settings.countdown_ms)
        await self._publish_new(conn, None, race, now)
        return race

    async def attach(self, conn: Conn, msg: Any, rid: str) -> m.RaceSnapshot:
        """Reply with the snapshot of a race where `conn`'s player sits, and deliver its
        events to `conn` (a resumed daily attempt, maybe from another connection)."""
        _now, race = await self.store.load_race(self._race_id(rid))
        if race is None:
            raise RaceError("no-such-race", "no such race")
        if race.seat_of(conn.pid) is None:  # type: ignore[arg-type]
            raise RaceError("not-in-race", "you have no seat in this race")
        if race.status != R.FINISHED and rid not in conn.races:
            self._add_member(conn, race)
        return self._reply(msg, race)

    async def _publish_new(self, conn: Conn | None, msg: Any, race: R.Race, now: int) -> m.RaceSnapshot:
        await self.store.commit(
            0, race, encode(m.RaceSnapshot(**R.snapshot(race))), ttl_ms=self._ttl(race, now)
        )
        self.metrics.races_created += 1
        for p in race.players:
            await self.store.add_seat(p.player, race.race)
        if not race.private:
            await self.store.index(race.race, race.created)
        if race.status == R.COUNTDOWN:
            await self.store.schedule(race.race, race.starts_at)
        if conn is not None:
            self._add_member(conn, race)
        return self._reply(msg, race)

    async def join(self, conn: Conn, msg: m.Join) -> m.RaceSnapshot:
        rid = self._race_id(msg.race)
        pid = conn.pid
        assert pid is not None
        _now, race = await self.store.load_race(rid)
        if race is None:
            raise RaceError("no-such-race", "no such race")
        if race.seat_of(pid) is None:
            await self._seat_limit(pid)
        race = await self._mutate(rid, lambda r, now: R.join(r, pid, conn.name))
        await self.store.add_seat(pid, rid)
        self._add_member(conn, race)
        return self._reply(msg, race)

    async def leave(self, conn: Conn, msg: m.Leave) -> m.RaceSnapshot:
        rid = self._race_id(msg.race)
        pid = conn.pid
        race = await self._mutate(rid, lambda r, now: R.leave(r, pid))  # type: ignore[arg-type]
        await self.store.remove_seat(pid, rid)  # type: ignore[arg-type]
        for c in list(self.players.get(pid, ())):  # type: ignore[arg-type]
            self._remove_member(c, rid)
        if not race.players:
            await self.store.index(rid, None)
        return self._reply(msg, race)

    async def ready(self, conn: Conn, msg: m.Ready) -> m.RaceSnapshot:
        rid = self._race_id(msg.race)
        cd = self.settings.countdown_ms
        race = await self._mutate(rid, lambda r, now: R.set_ready(r, conn.pid, msg.ready, now, cd))  # type: ignore[arg-type]
        return self._reply(msg, race)

    async def host_start(self, conn: Conn, msg: m.Start) -> m.RaceSnapshot:
        rid = self._race_id(msg.race)
        cd = self.settings.countdown_ms
        race = await self._mutate(rid, lambda r, now: R.host_start(r, conn.pid, now, cd))  # type: ignore[arg-type]
        return self._reply(msg, race)

    async def quick(self, conn: Conn, msg: m.Quick) -> None:
        gdef = self._check_game(msg.game)
        if msg.seats > self.settings.max_seats:
            raise RaceError("bad-message", f"`seats`: at most {self.settings.max_seats}", field="seats")
        pid = conn.pid
        assert pid is not None
        await self._seat_limit(pid)
        group = await self.store.quick_push(gdef.id, msg.seats, pid)
        conn.quick.add((gdef.id, msg.seats))
        conn.send(encode(m.Queued(rid=msg.rid, game=gdef.id, seats=msg.seats)))
        if not group:
            return None
        # This process completed a group: it seats everyone in a new public race.
        for c in self.players.get(pid, ()):
            c.quick.discard((gdef.id, msg.seats))
        names = [await self.store.player_name(p) for p in group]
        seed = self.seed_factory()
        now = await self.store.time_ms()
        race = R.new_quick_race(
            race=S.new_race_id(),
            game=gdef.id,
            total=gdef.total,
            time_limit_s=self.settings.time_limit_s,
            players=list(zip(group, names)),
            now=now,
            countdown_ms=self.settings.countdown_ms,
            seed=seed,
            commitment=rules.seed_commitment(seed),
            rules_version=rules.RULES_VERSION,
            deal_version=rules.DEAL_VERSION,
        )
        await self._publish_new(None, msg, race, now)
        notice = encode({"t": "seated", "race": race.race})
        for p in group:
            await self.store.publish_player(p, notice)
        return None

    async def unqueue(self, conn: Conn, msg: m.Unqueue) -> m.Ok:
        for game, seats in list(conn.quick):
            if game == msg.game:
                await self.store.quick_remove(game, seats, conn.pid)  # type: ignore[arg-type]
                conn.quick.discard((game, seats))
        return m.Ok(rid=msg.rid)

    # --- clock: start and end ----------------------------------------------------------------------

    async def tick(self, rid: str) -> None:
        """Do what the clock says for this race (idempotent; any process may call it)."""
        if rid in self.ticking or self.stopping:
            return
        self.ticking.add(rid)
        try:
            for _attempt in range(20):
                now, race = await self.store.load_race(rid)
                if race is None:
                    await self.store.schedule(rid, None)
                    return
                what = R.due(race, now)
                try:
                    if what == "start":
                        await self._begin(race, now)
                    elif what == "end":
                        await self._end(race, now)
                    else:
                        await self.store.schedule(rid, R.next_timer(race))
                        return
                except S.Conflict:
                    continue
        finally:
            self.ticking.discard(rid)

    async def _begin(self, race: R.Race, now: int) -> None:
        dealt = rules.deal(race.game, race.seed)
        new = R.begin(race, dealt.cards_home)
        new.ver = race.ver + 1
        pos = S.encode_position(dealt)
        fields = {
            "n": 0,
            "home": dealt.cards_home,
            "status": R.PLAYING,
            "at": new.starts_at,
            "pos": pos,
            "last": "",
            "rev": "",
            "mt": new.starts_at,
        }
        players = {p.player: fields for p in new.players}
        await self.store.commit(
            race.ver,
            new,
            encode(m.RaceSnapshot(**R.snapshot(new))),
            players=players,
            ttl_ms=self._ttl(new, now),
            extra_live=len(new.players),
        )
        await self.store.schedule(race.race, new.deadline)

    async def _end(self, race: R.Race, now: int) -> None:
        logs = await self.store.move_logs(race)
        new = R.end(
            race,
            now,
            {pid: [(at, home) for at, home, _mv in rows] for pid, rows in logs.items()},
            rules.deal(race.game, race.seed).cards_home,
        )
        # Each player stopped by the clock gets a progress event (status timeout), then the end.
        stopped = [p for p in new.players if race.seat_of(p.player).status != p.status]  # type: ignore[union-attr]
        events = [
            progress(race.race, race.ver + i + 1, p.player, p.n, p.home, race.total, p.status, p.at or now)
            for i, p in enumerate(stopped)
        ]
        new.ver = race.ver + len(events) + 1
        seed = None if new.sealed else new.seed
        events.append(encode(m.End(race=race.race, ver=new.ver, seed=seed, ranking=new.ranking)))
        players = {p.player: {"status": p.status, "at": p.at} for p in stopped}
        await self.store.commit(race.ver, new, events, players=players, ttl_ms=self._ttl(new, now))
        self.metrics.races_finished += 1
        await self.store.schedule(race.race, None)
        await self.store.index(race.race, None)
        for p in new.players:
            await self.store.remove_seat(p.player, race.race)
        for hook in self.end_hooks:  # once per race: only the process whose commit won gets here
            try:
                await hook(new, logs)
            except Exception:
                log.exception("end hook failed for race %s", race.race)

    async def _sweeper(self) -> None:
        """Backstop of the local timers: fire every due countdown end and deadline in Redis."""
        failed = 0  # sweeps failed in a row: a Redis outage logs once, not every sweep
        while not self.stopping:
            await asyncio.sleep(self.settings.sweep_ms / 1000)
            try:
                for rid in await self.store.due_races(self.now_ms()):
                    await self.tick(rid)
            except Exception as exc:
                failed += 1
                if failed == 1:
                    outage = isinstance(
                        exc, (ConnectionError, OSError, RedisConnectionError, RedisTimeoutError)
                    )
                    log.warning("deadline sweep failed: %s", exc, exc_info=not outage)
                continue
            if failed:
                log.info("deadline sweep back after %d failed sweeps", failed)
                failed = 0

    # --- the move path -------------------------------------------------------------------------------

    def move(self, conn: Conn, msg: m.Move) -> Awaitable[None] | None:
        """Validate against the cached game and send one EVALSHA; the ack goes out from its callback.

        Returns None when done synchronously (the hot path), or a coroutine the
        gateway awaits before reading the connection's next frame (cache miss,
        n mismatch): that keeps one connection's moves in order.
        """
        key = (msg.race, conn.pid)
        e = self.games.get(key)
        if e is None or msg.n != e.n or e.status != R.PLAYING:
            return self._move_slow(conn, msg)
        g = e.game
        try:
            res = g.apply(msg.move)
        except rules.IllegalMove as exc:
            self.metrics.moves_refused[exc.code] += 1
            conn.send(encode(m.Error(rid=msg.rid, code="illegal-move", message=str(exc), reason=exc.code)))
            return None
        self._send_move(conn, msg, e, res, time.perf_counter())
        return None

    def _send_move(self, conn: Conn, msg: m.Move, e: Entry, res: rules.MoveResult, t0: float) -> None:
        g = e.game
        e.n += 1
        e.inflight += 1
        e.last = msg.move
        if res.won:
            e.status = R.WON
        view = g.view_text() if msg.view else None
        legal = g.legal_moves() if msg.view else None
        revealed = list(res.revealed)
        key = (msg.race, conn.pid)

        def done(reply: S.MoveReply) -> None:
            e.inflight -= 1
            if type(reply) is S.Applied:
                conn.send(
                    encode(
                        m.Ack(
                            rid=msg.rid,
                            race=msg.race,
                            n=reply.n,
                            ver=reply.ver,
                            move=msg.move,
                            revealed=revealed,
                            home=res.cards_home,
                            won=res.won,
                            status=R.WON if res.won else R.PLAYING,
                            at=reply.at,
                            view=view,
                            legal=legal,
                        )
                    )
                )
                # The rivals and spectators here get the progress now, if it is the race's next
                # event for them; otherwise its copy on the bus brings it, in order (_fan_out).
                ver = reply.ver
                loc = self.local.get(msg.race)
                if loc is not None and ver == loc.sent + 1 and loc.filling is None:
                    loc.sent = ver
                    if ver > loc.ver:
                        loc.ver = ver
                    self._progress_out(loc, reply.frame, conn.pid)
                metrics = self.metrics
                metrics.moves_accepted += 1
                metrics.move_latency.observe(time.perf_counter() - t0)
                if reply.live == 0:  # nobody is playing any more: end the race now
                    self.spawn(self.tick(msg.race))
            else:
                if self.games.get(key) is e:  # the cache ran ahead of Redis: reload next time
                    del self.games[key]
                self._script_refusal(conn, msg, reply)
            if e.inflight == 0 and e.idle:
                for f in e.idle:
                    if not f.done():
                        f.set_result(None)
                e.idle.clear()

        self.store.moves.play(
            msg.race,
            conn.pid,
            msg.n,
            msg.move,
            e.pos.encode(msg.move),
            res.cards_home,
            res.won,
            S.revealed_text(res.revealed),
            done,
        )

    def _script_refusal(self, conn: Conn, msg: Any, reply: S.MoveReply) -> None:
        """Turn a reply of the move script that is not a fresh move into the client's answer."""
        rid = msg.rid
        if type(reply) is S.Duplicate:
            conn.send(
                encode(
                    m.Ack(
                        rid=rid,
                        race=msg.race,
                        n=reply.n,
                        ver=reply.ver,
                        move=msg.move,
                        revealed=reply.revealed,
                        home=reply.home,
                        won=reply.status == R.WON,
                        status=reply.status,
                        at=reply.at,
                        dup=True,
                    )
                )
            )
            return
        if type(reply) is not S.Refused:
            log.error("move script failed: %s", getattr(reply, "error", reply))
            self.metrics.moves_refused["internal"] += 1
            conn.send(
                encode(m.Error(rid=rid, code="internal", message="server fault; the move had no effect"))
            )
            return
        code = reply.code
        self.metrics.moves_refused[code] += 1
        if code == "out-of-sync":
            conn.send(
                encode(m.Error(rid=rid, code=code, message="move count mismatch; state follows", n=reply.n))
            )
            self.spawn(self._send_state(conn, msg.race))
        elif code == "game-over":
            conn.send(encode(m.Error(rid=rid, code=code, message="your game is over")))
        elif code == "race-not-running":
            conn.send(encode(m.Error(rid=rid, code=code, message="the race is not running")))
        elif code == "no-such-race":
            conn.send(encode(m.Error(rid=rid, code=code, message="no such race")))
        else:
            conn.send(encode(m.Error(rid=rid, code="not-in-race", message="you have no seat in this race")))

    async def _load_entry(self, rid: str, pid: str) -> Entry:
        load = await self.store.load_player(rid, pid)
        if load.status is None:
            raise RaceError("no-such-race", "no such race")
        if not load.seated:
            raise RaceError("not-in-race", "you have no seat in this race")
        if load.status != R.RUNNING or load.game is None:
            raise RaceError("race-not-running", "the race is not running")
        pg = load.game
        return Entry(pg.game(), pg.n, pg.status, pg.last)

    async def _settled(self, key: tuple[str, str]) -> Entry | None:
        """Wait until the player's in-flight moves have landed; their cache entry then."""
        e = self.games.get(key)
        if e is not None and e.inflight:
            fut = asyncio.get_running_loop().create_future()
            e.idle.append(fut)
            await fut
            e = self.games.get(key)
        return e

    async def _move_slow(self, conn: Conn, msg: m.Move) -> None:
        """Cache miss, dup, or n mismatch: settle in-flight moves, reload from Redis, decide."""
        rid, pid = msg.race, conn.pid
        assert pid is not None
        if not S.valid_race_id(rid):
            self.metrics.moves_refused["no-such-race"] += 1
            raise RaceError("no-such-race", "no such race")
        key = (rid, pid)
        e = await self._settled(key)
        t0 = time.perf_counter()
        if e is None or msg.n != e.n:
            try:
                e = await self._load_entry(rid, pid)
            except RaceError as exc:
                self.metrics.moves_refused[exc.code] += 1
                raise
            self.games[key] = e
        if msg.n == e.n - 1 and msg.move == e.last:
            # A retried duplicate: Redis re-acks it with the race's current version.
            fut: asyncio.Future[S.MoveReply] = asyncio.get_running_loop().create_future()
            self.store.moves.reack(rid, pid, msg.n, msg.move, fut.set_result)
            self._script_refusal(conn, msg, await fut)
            return
        if e.status != R.PLAYING:
            self.metrics.moves_refused["game-over"] += 1
            raise RaceError("game-over", "your game is over")
        if msg.n != e.n:
            self.metrics.moves_refused["out-of-sync"] += 1
            conn.send(
                encode(
                    m.Error(
                        rid=msg.rid, code="out-of-sync", message="move count mismatch; state follows", n=e.n
                    )
                )
            )
            await self._send_state(conn, rid)
            return
        try:
            res = e.game.apply(msg.move)
        except rules.IllegalMove as exc:
            self.metrics.moves_refused[exc.code] += 1
            raise RaceError("illegal-move", str(exc), reason=exc.code) from None
        self._send_move(conn, msg, e, res, t0)

    async def finish(self, conn: Conn, msg: m.Finish) -> None:
        rid, pid = self._race_id(msg.race), conn.pid
        assert pid is not None
        _now, race = await self.store.load_race(rid)
        if race is None:
            raise RaceError("no-such-race", "no such race")
        if race.seat_of(pid) is None:
            raise RaceError("not-in-race", "you have no seat in this race")
        key = (rid, pid)
        await self._settled(key)
        loop = asyncio.get_running_loop()
        fut2: asyncio.Future[S.MoveReply] = loop.create_future()
        self.store.moves.finish(rid, pid, fut2.set_result)
        reply = await fut2
        self.games.pop(key, None)
        if type(reply) is S.Applied:
            conn.send(encode(m.Ok(rid=msg.rid, ver=reply.ver)))
            if reply.live == 0:
                self.spawn(self.tick(rid))
            return None
        self._script_refusal(conn, msg, reply)
        return None

    # --- state, replay, listing, spectators -------------------------------------------------------

    async def _state(self, conn: Conn, rid: str, since: int | None, req_rid: int | None) -> m.State:
        if not S.valid_race_id(rid):
            raise RaceError("no-such-race", "no such race")
        _now, race = await self.store.load_race(rid)
        if race is None:
            raise RaceError("no-such-race", "no such race")
        you = None
        if race.seat_of(conn.pid) is not None and race.status in (R.RUNNING, R.FINISHED):  # type: ignore[arg-type]
            pg = (await self.store.load_player(rid, conn.pid)).game  # type: ignore[arg-type]
            if pg is not None:
                g = pg.game()
                playing = pg.status == R.PLAYING and race.status == R.RUNNING
                you = m.You(
                    n=pg.n,
                    view=g.view_text(),
                    legal=g.legal_moves() if playing else [],
                    home=pg.home,
                    status=pg.status,
                )
        events = None
        if since is not None:
            frames = await self.store.events_since(rid, since)
            events = [msgspec.Raw(f) for f in frames] if frames is not None else None
        return m.State(rid=req_rid, race=m.RaceSnapshot(**R.snapshot(race)), you=you, events=events)  # type: ignore[arg-type]

    async def _send_state(self, conn: Conn, rid: str) -> None:
        try:
            conn.send(encode(await self._state(conn, rid, None, None)))
        except Exception:
            log.warning("could not send state", exc_info=True)

    async def resync(self, conn: Conn, msg: m.Resync) -> m.State:
        return await self._state(conn, msg.race, msg.since, msg.rid)

    async def replay(self, conn: Conn, msg: m.Replay) -> m.ReplayData:
        rid = self._race_id(msg.race)
        _now, race = await self.store.load_race(rid)
        if race is None:
            raise RaceError("no-such-race", "no such race")
        if race.status != R.FINISHED:
            raise RaceError("race-not-over", "the race is not finished")
        if self.replay_guard is not None:
            await self.replay_guard(conn, race)
        logs = await self.store.move_logs(race)
        players = [
            {"player": p.player, "name": p.name, "moves": [[mv, at] for at, _h, mv in logs[p.player]]}
            for p in race.players
        ]
        return m.ReplayData(
            rid=msg.rid,
            race=rid,
            game=race.game,
            rules_version=race.rules_version,
            deal_version=race.deal_version,
            seed=race.seed,
            ranking=race.ranking or [],
            players=players,
        )  # type: ignore[arg-type]

    async def races(self, conn: Conn, msg: m.Races) -> m.RaceList:
        ids = await self.store.public_races(self.settings.max_list)
        out = []
        stale = []
        for rid, race in zip(ids, await self.store.load_races(ids)):
            if isinstance(race, BaseException):
                continue
            if race is None or race.status == R.FINISHED:
                stale.append(rid)
                continue
            if race.private or (msg.game is not None and race.game != msg.game):
                continue
            out.append(R.summary(race))
            if len(out) >= self.settings.max_list:
                break
        for rid in stale:
            await self.store.index(rid, None)
        return m.RaceList(rid=msg.rid, races=out)  # type: ignore[arg-type]

    async def spectate(self, conn: Conn, msg: m.Spectate) -> m.RaceSnapshot:
        rid = self._race_id(msg.race)
        _now, race = await self.store.load_race(rid)
        if race is None:
            raise RaceError("no-such-race", "no such race")
        if race.private:
            raise RaceError("private-race", "private races allow no spectators")
        if race.seat_of(conn.pid) is not None:  # type: ignore[arg-type]
            raise RaceError("is-player", "you play in this race")
        if self.spectate_guard is not None:
            await self.spectate_guard(conn, race)
        if rid not in conn.spectating:
            loc = self._ensure_local(race)
            loc.spectators.add(conn)
            conn.spectating.add(rid)
            await self.store.spectators(rid, +1)
            race.spectators += 1
            if loc.boards_frame is not None:
                self.spawn(self._late_boards(conn, loc))
        return self._reply(msg, race)

    async def _late_boards(self, conn: Conn, loc: Local) -> None:
        await asyncio.sleep(0)  # after the snapshot reply
        if loc.boards_frame is not None and conn in loc.spectators:
            conn.send(loc.boards_frame)

    async def unspectate(self, conn: Conn, msg: m.Unspectate) -> m.Ok:
        await self._unspectate(conn, msg.race)
        return m.Ok(rid=msg.rid)

    async def _unspectate(self, conn: Conn, rid: str) -> None:
        if rid not in conn.spectating:
            return
        conn.spectating.discard(rid)
        loc = self.local.get(rid)
        if loc is not None:
            loc.spectators.discard(conn)
            self._drop_local_if_idle(loc)
        try:
            await self.store.spectators(rid, -1)
        except Exception:
            log.warning("could not count a spectator out", exc_info=True)

    async def _boards_loop(self) -> None:
        """Every SPECTATOR_FLUSH: sample boards of watched running races; release them after the delay."""
        st = self.settings
        while not self.stopping:
            await asyncio.sleep(st.spectator_flush_ms / 1000)
            now = self.now_ms()
            for loc in list(self.local.values()):
                if not loc.spectators or loc.status != R.RUNNING:
                    continue
                try:
                    await self._sample(loc, now)
                except Exception:
                    log.warning("spectator boards failed", exc_info=True)

    async def _sample(self, loc: Local, now: int) -> None:
        if loc.dirty or not loc.samples:
            loc.dirty = False
            boards = []
            for pid, (n, pos) in zip(loc.pids, await self.store.positions(loc.rid, loc.pids)):
                if pos:
                    boards.append({"player": pid, "n": n, "view": S.decode_position(pos).view_text()})
            loc.samples.append((now, boards))
        cutoff = now - self.settings.spectator_delay_ms
        due = None
        while loc.samples and loc.samples[0][0] <= cutoff:
            due = loc.samples.popleft()
        if due is None:
            return
        loc.samples.appendleft(due)  # still the latest due sample until a newer one is due
        if loc.boards_at == due[0]:
            return
        loc.boards_at = due[0]
        loc.boards_frame = encode(m.Boards(race=loc.rid, at=due[0], boards=due[1]))  # type: ignore[arg-type]
        broadcast_latest(
            loc.spectators, loc.boards_frame
        )  # one websockets.broadcast; backlogged ones skip it
