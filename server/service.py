"""The race service: the rooms this process holds, its bus, its timers, and the request table.

The gateway (server/net/gateway.py, its frames decoded in server/net/dispatch.py)
calls the handlers of `handlers` (server/handlers/, by feature); each either returns
the reply message or raises `RaceError` (the gateway turns it into an `error`).
Everything authoritative goes through `store` (server/storage/); this
process keeps only caches:

- `games[(race, player)]`: the player's game for checking moves without
  Redis (server/core/moves.py `Entry`);
- `local[race]`: the `Room` of each race with a local connection: its
  members, spectators, public facts and timer (server/core/room.py). Each
  race with a room has its pub/sub channel subscribed;
- `players[player]`: the sessions of each player connected here.

Timers: every process runs a sweeper over the stored timers (countdown
ends, deadlines), plus an exact local timer for each room
(server/handlers/clock.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from protocol import messages as m
from protocol import rules

from .config import Settings
from .core import races as R
from .core import room as rooms
from .core.moves import Entry
from .core.room import Room
from .core.session import Session
from .handlers.bots import Bots
from .handlers.clock import Clock
from .handlers.fanout import Fanout
from .handlers.leftovers import Leftovers
from .handlers.lobby import Lobby
from .handlers.play import Play
from .handlers.presence import LobbyPresence
from .handlers.quick_match import QuickMatch
from .handlers.recent import RecentHandlers
from .handlers.rematch import Rematch
from .handlers.session import SessionHandlers
from .handlers.watch import Watch
from .metrics import Metrics
from .storage import Store, is_outage, keys
from .storage.sessions import Resumed
from .tasks import cancel_and_wait, task_name

log = logging.getLogger("solrace.service")

Handler = Callable[[Session, Any], Awaitable[Any]]


#: Redis TIME round trips at start, for `clock_offset`.
CLOCK_SAMPLES = 3


def clock_offset(samples: Iterable[tuple[float, int, float]]) -> int:
    """Redis clock minus local clock, ms, from TIME round trips (local ms before, Redis ms,
    local ms after): the quickest trip's, against its midpoint. Against the time after the
    reply, `now_ms` ran behind Redis by half a trip, which on a loaded start is milliseconds."""
    before, server, after = min(samples, key=lambda s: s[2] - s[0])
    return round(server - (before + after) / 2)


class Service:
    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.games: dict[tuple[str, str], Entry] = {}
        self.local: dict[str, Room[Session]] = {}
        self.players: dict[str, set[Session]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.offset_ms = 0  # Redis clock - local clock
        self.stopping = False
        self.timers: dict[str, asyncio.TimerHandle] = {}  # race id -> its local timer
        # Where race seeds come from. Tests may replace it to race a known deal;
        # nothing else should (the seed must be unpredictable).
        self.seed_factory: Callable[[], str] = rules.random_seed
        # Daily challenges (server/daily/handlers.py) plug in here; races need none of it.
        self.spectate_guard: Callable[[Session, R.Race], Awaitable[None]] | None = None
        self.replay_guard: Callable[[Session, R.Race], Awaitable[None]] | None = None
        # Certified deals (server/certify): (game, requested) -> (seed, winning line) or None.
        self.certified_deal: Callable[[str, bool | None], Awaitable[tuple[str, list[str]] | None]] | None = (
            None
        )
        self.end_hooks: list[Callable[[R.Race, dict[str, list[tuple[int, int, str]]]], Awaitable[None]]] = []
        self.disconnect_hooks: list[Callable[[Session], Awaitable[None]]] = []
        # hello's token -> the resumed session; accounts (server/handlers/accounts.py) wrap it.
        self.resume: Callable[[Session, str], Awaitable[Resumed | None]] = lambda _s, token: (
            store.sessions.resume_session(token)
        )
        self.bus_hooks: dict[bytes, Callable[[bytes, bytes], None]] = {}  # channel prefix -> handler
        # A player-channel notice type -> its handler (player id, the notice), instead of
        # forwarding the notice to the player's connections.
        self.notice_hooks: dict[str, Callable[[str, bytes], None]] = {}
        # A coalescible frame (spectator boards) to many sessions: the gateway puts its
        # one-write broadcast here; without it each session gets it through its send.
        self.broadcast_latest: Callable[[Iterable[Session], bytes], object] = self._send_each
        self.session = SessionHandlers(self)
        self.lobby = Lobby(self, self.session.limit_exempt)
        self.quick_match = QuickMatch(self, self.lobby)
        self.play = Play(self)
        self.watch = Watch(self)
        self.clock = Clock(self)
        self.fanout = Fanout(self)
        self.bots = Bots(self, self.quick_match)
        self.rematch = Rematch(self, self.lobby, self.bots)
        self.recent = RecentHandlers(self)
        self.presence = LobbyPresence(self, self.lobby)
        self.leftovers = Leftovers(self, self.bots.queue)
        self.clock.lobby_check = self.presence.check
        self.watch.unattended = self.presence.hidden
        self.session.rejoined_hooks.append(self.presence.came_back)
        self.session.last_closed_hooks.append(self.presence.last_connection_closed)
        self.bus = store.subscriber(
            self.fanout.on_bus, self.fanout.on_bus_reconnect, self.fanout.on_subscribed
        )
        self.handlers: dict[type, Handler] = {
            m.Ping: self.session.ping,
            m.Create: self.lobby.create,
            m.Join: self.lobby.join,
            m.Leave: self.lobby.leave,
            m.Ready: self.lobby.ready,
            m.Start: self.lobby.host_start,
            m.Quick: self.bots.quick,  # the casual quick-match, plus a bot for a lonely player
            m.Unqueue: self.quick_match.unqueue,
            m.Finish: self.play.finish,
            m.Resync: self.play.resync,
            m.Replay: self.watch.replay,
            m.Races: self.watch.races,
            m.Spectate: self.watch.spectate,
            m.Unspectate: self.watch.unspectate,
            m.Bot: self.bots.bot,
            m.Rematch: self.rematch.rematch,
            m.Recent: self.recent.recent,  # every player's own races, guests' too
        }
        # Requests answered beside the connection's queue, when they are ready (docs/protocol.md
        # §1): a solver's seconds would otherwise hold every later reply of the connection, pings
        # and move acks included. server/certify adds hint and analysis.
        self.detached: set[type] = set()
        # The two requests the gateway calls directly.
        self.hello = self.session.hello
        self.move = self.play.move

    # --- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        samples = []
        for _ in range(CLOCK_SAMPLES):
            before = time.time() * 1000
            server_now = await self.store.time_ms()
            samples.append((before, server_now, time.time() * 1000))
        self.offset_ms = clock_offset(samples)
        await self.bus.start()
        self.spawn(self.clock.sweeper())
        self.spawn(self.watch.boards_loop())
        self.spawn(self.leftovers.run())

    async def stop(self) -> None:
        self.stopping = True
        for timer in self.timers.values():
            timer.cancel()
        # Not one cancel each and an unbounded wait: a cancel landing in a Redis call can be
        # lost, and the task would go on (server/tasks.py).
        await cancel_and_wait(list(self.tasks))
        await self.bus.close()

    def now_ms(self) -> int:
        """An estimate of the Redis clock (authoritative times come from Redis TIME)."""
        return int(time.time() * 1000) + self.offset_ms

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """`coro` as a task of this service, cancelled by its stop. Once the stop has begun, the
        task is cancelled before it runs: the stop may already have waited for the tasks it
        found, and one spawned after that would outlive the service."""
        task = asyncio.ensure_future(coro)
        if asyncio.iscoroutine(coro):
            task.set_name(task_name(coro))  # what a stop's log names (server/tasks.py)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        if self.stopping:
            task.cancel()
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            self.failed("background task failed", exc)

    def failed(self, what: str, exc: BaseException) -> None:
        """Log a failure once: a Redis outage goes into the outage's one log line, anything else
        is logged with its traceback."""
        if is_outage(exc):
            self.store.health.failed(exc)
        else:
            log.warning(what, exc_info=exc)

    async def disconnect(self, s: Session) -> None:
        await self.session.disconnect(s)

    def tick_soon(self, rid: str) -> None:
        """Let the clock look at this race now (a move or finish left nobody playing)."""
        self.spawn(self.clock.tick_now(rid))

    async def unspectate(self, s: Session, rid: str) -> None:
        await self.watch.unspectate_race(s, rid)

    def drop_seated_spectators(self, room: Room[Session], pids: list[str]) -> None:
        self.watch.drop_seated(room, pids)

    @staticmethod
    def _send_each(sessions: Iterable[Session], frame: bytes) -> None:
        for s in sessions:
            s.send(frame)

    # --- the rooms ------------------------------------------------------------------------

    def ensure_room(self, race: R.Race) -> Room[Session]:
        room = self.local.get(race.race)
        if room is None:
            room = Room(
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
            self.local[race.race] = room
            self.bus.subscribe(keys.race_channel(race.race))
        else:
            pids = [p.player for p in race.players]
            rooms.update(room, race.status, race.ver, pids, race.starts_at, race.deadline)
        self.arm_timer(room)
        return room

    def drop_room_if_idle(self, room: Room[Session]) -> None:
        if room.idle():
            self.drop_room(room)

    def drop_room(self, room: Room[Session]) -> None:
        if self.local.get(room.rid) is room:
            del self.local[room.rid]
        timer = self.timers.pop(room.rid, None)
        if timer is not None:
            timer.cancel()
        self.bus.unsubscribe(keys.race_channel(room.rid))
        for pid in room.pids:
            self.games.pop((room.rid, pid), None)
        self.store.moves.forget(room.rid, room.pids)

    def add_member(self, s: Session, race: R.Race) -> None:
        room = self.ensure_room(race)
        room.members.setdefault(s.player, set()).add(s)
        s.races.add(race.race)
        self.watch.drop_seated(room, [s.player])

    def remove_member(self, s: Session, rid: str) -> None:
        s.races.discard(rid)
        room = self.local.get(rid)
        if room is None:
            return
        sessions = room.members.get(s.player)
        if sessions is not None:
            sessions.discard(s)
            if not sessions:
                del room.members[s.player]
        self.drop_room_if_idle(room)

    def arm_timer(self, room: Room[Session]) -> None:
        """An exact local timer for the room's next transition (the sweeper is the backstop)."""
        changed, at = rooms.rearm(room)
        if not changed:
            return
        timer = self.timers.pop(room.rid, None)
        if timer is not None:
            timer.cancel()
        if at is not None and not self.stopping:
            delay = max(0.0, (at - self.now_ms()) / 1000.0)
            rid = room.rid
            self.timers[rid] = asyncio.get_running_loop().call_later(
                delay, lambda: self.spawn(self.clock.tick_now(rid))
            )
