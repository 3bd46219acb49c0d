"""Playing (docs/protocol.md §3: `move`, `finish`, `resync`).

The hot path (`move`) runs synchronously as the frame is parsed: the move is
checked against the cached game (server/core/moves.py), applied in place,
and handed to the move pipe (one EVALSHA, batched per loop tick); the ack
goes out from the reply's callback, and the progress reaches the rivals here
at once when it is the race's next event (server/core/room.py). Anything
else (cache miss, count mismatch, a retried duplicate, a move of the player
sent while an earlier one awaits Redis' answer) takes the slow path, which
the gateway awaits before the connection's next frame, so one connection's
moves stay in order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import msgspec

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode, PlayerStatus, RaceStatus

from ..core import moves as core
from ..core import privacy
from ..core import races as R
from ..core import room as rooms
from ..core.checks import no_such_race, not_in_race
from ..core.moves import Applied, Duplicate, Entry, MoveReply, Step
from ..core.races import RaceError
from ..core.session import Session
from ..storage import PositionCache, is_outage, revealed_text
from ..storage.positions import snapshot_due
from .lobby import race_id
from .runtime import Runtime

log = logging.getLogger("solrace.play")

# How soon after a move or finish that may end the race its stored timer falls due at the
# latest (`_end_check`): what a process dying right after storing the last game's end costs.
END_CHECK_MS = 2_000

encode = m.encode


class Play:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc

    def move(self, s: Session, msg: m.Move) -> Awaitable[None] | None:
        """Check against the cached game and send one EVALSHA; the ack goes out from its callback.

        Returns None when done synchronously (the hot path), or a coroutine the
        gateway awaits before reading the connection's next frame.
        """
        e = self.svc.games.get((msg.race, s.player))
        # A move that may win the game goes the slow way: the end check is written first.
        if e is None or not core.on_fast_path(e, msg.n) or core.may_win(e.game, msg.move):
            return self._move_slow(s, msg)
        try:
            res = e.game.apply(msg.move)
        except rules.IllegalMove as exc:
            late = self._too_late(msg.race, e)
            if late is not None:
                self._refused(late)
                self._error(s.send, m.Error(rid=msg.rid, code=late, message=core.MESSAGES[late]))
                return None
            self.svc.metrics.moves_refused[exc.code] += 1
            self._error(
                s.send, m.Error(rid=msg.rid, code=ErrorCode.ILLEGAL_MOVE, message=str(exc), reason=exc.code)
            )
            return None
        self._send_move(s, msg, e, res, time.perf_counter())
        return None

    def _send_move(self, s: Session, msg: m.Move, e: Entry, res: rules.MoveResult, t0: float) -> None:
        svc = self.svc
        pid = s.player
        g = e.game
        e.sent(msg.move, res.won)
        view = g.view_text() if msg.view else None
        legal = g.legal_moves() if msg.view else None

        answer = s.later()  # the ack goes out in its place among the connection's replies

        def done(reply: MoveReply) -> None:
            try:
                if type(reply) is Applied:
                    answer(encode(core.ack(msg.rid, msg, reply, res, view, legal)))
                    room = svc.local.get(msg.race)
                    if room is not None and rooms.take_local_progress(room, reply.ver):
                        rooms.send_progress(room, reply.frame, pid)
                    metrics = svc.metrics
                    metrics.moves_accepted += 1
                    metrics.move_latency.observe(time.perf_counter() - t0)
                    if reply.live == 0:  # nobody is playing any more: end the race now
                        svc.tick_soon(msg.race)
                else:
                    key = (msg.race, pid)
                    if svc.games.get(key) is e:  # the cache ran ahead of Redis: reload next time
                        del svc.games[key]
                    self._answer(s, msg, reply, answer)
            finally:
                e.landed()  # whatever happened above, nobody waits for this move for ever
                answer.settle()  # ...nor for its ack: the replies behind it go out

        # The log is the truth; the position is stored only as a snapshot every few moves.
        pos = e.pos.encode() if (e.resnap or snapshot_due(msg.n + 1)) else b""
        e.resnap = False
        svc.store.moves.play(
            msg.race,
            pid,
            msg.n,
            msg.move,
            pos,
            res.cards_home,
            res.won,
            revealed_text(res.revealed),
            done,
        )

    def _answer(
        self,
        s: Session,
        msg: m.Move | m.Finish,
        reply: MoveReply,
        send: Callable[[bytes], None] | None = None,
    ) -> None:
        """The client's answer to a reply of the move script that is not a fresh move."""
        send = s.send if send is None else send
        if isinstance(reply, Duplicate):
            assert isinstance(msg, m.Move)
            send(encode(core.dup_ack(msg.rid, msg.race, msg.move, reply)))
            return
        assert not isinstance(reply, Applied)  # a fresh move or finish is answered by its caller
        error, then_state = core.refusal(msg.rid, reply)
        if error.code == ErrorCode.INTERNAL:
            exc = getattr(reply, "error", None)
            if isinstance(exc, BaseException) and is_outage(exc):
                self.svc.store.health.failed(exc)  # one log line per outage, not one per move
            else:
                log.error("move script failed: %s", exc)
        self.svc.metrics.moves_refused[error.code] += 1
        self._error(send, error)
        if then_state:
            self.svc.spawn(self._send_state(s, msg.race))

    async def _load_entry(self, rid: str, pid: str) -> Entry:
        load = await self.svc.store.load_player(rid, pid)
        if load.status is None:
            raise no_such_race()
        if not load.seated:
            raise not_in_race()
        if load.status != RaceStatus.RUNNING or load.game is None:
            raise RaceError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
        pg = load.game
        game = pg.game()
        e = Entry(game, PositionCache(game), pg.n, pg.status, pg.last, pg.dl)
        e.resnap = pg.pn is None
        return e

    async def settled(self, key: tuple[str, str]) -> Entry | None:
        """Wait until the player's in-flight moves have landed; their cache entry then, with none
        in flight (another connection of the player may have sent one before this task woke)."""
        e = self.svc.games.get(key)
        while e is not None and e.inflight:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            e.idle.append(fut)
            await fut
            e = self.svc.games.get(key)
        return e

    def _error(self, send: Callable[[bytes], None], error: m.Error) -> None:
        """An error reply sent here rather than raised to the gateway: counted like the
        gateway's own (server/net/dispatch.py; `errors_total`, docs/operations.md §10)."""
        self.svc.metrics.errors[error.code] += 1
        send(encode(error))

    def _refused(self, code: str) -> None:
        self.svc.metrics.moves_refused[code] += 1

    async def _end_check(self, rid: str) -> None:
        """Before a move or finish that may end the player's game, and so the race if theirs
        was the last: the race's stored timer no later than END_CHECK_MS from now. Were this
        process to die between storing it and ending the race (`tick_soon`), the timer left
        ends the race then, not at its deadline; a tick that finds nothing due (others play
        on) puts the deadline back, and a tick that read the race before this write never
        raises it (clock.py `_set_timer`). A failure here only loses that safety net."""
        svc = self.svc
        try:
            # XX: never a timer for a race that has none (one ended and followed up)
            await svc.store.schedule_sooner(rid, svc.now_ms() + END_CHECK_MS)
        except Exception as exc:
            svc.failed(f"could not arm the end check of race {rid}", exc)

    async def _move_slow(self, s: Session, msg: m.Move, checked: bool = False) -> None:
        """Cache miss, dup, or n mismatch: settle in-flight moves, reload from Redis, decide."""
        svc = self.svc
        rid, pid = msg.race, s.player
        try:
            race_id(rid)
        except RaceError:
            self._refused(ErrorCode.NO_SUCH_RACE)
            raise
        key = (rid, pid)
        e = await self.settled(key)
        t0 = time.perf_counter()
        # A cached game that is over is reloaded too: the race's own state decides
        # first, so a finished race says race-not-running, never game-over.
        if e is None or msg.n != e.n or e.status != PlayerStatus.PLAYING:
            try:
                e = await self._load_entry(rid, pid)
            except RaceError as exc:
                self._refused(exc.code)
                raise
            except Exception:  # Redis failed: the gateway answers internal, counted here too
                self._refused(ErrorCode.INTERNAL)
                raise
            svc.games[key] = e
        past_deadline = self._past_deadline(rid)
        step = core.slow_step(e, msg.n, msg.move, past_deadline)
        if step is Step.REACK:
            # A retried duplicate: Redis re-acks it with the race's current version.
            fut: asyncio.Future[MoveReply] = asyncio.get_running_loop().create_future()
            svc.store.moves.reack(rid, pid, msg.n, msg.move, fut.set_result)
            self._answer(s, msg, await fut)
            return
        refused = core.REFUSED_STEPS.get(step)
        if refused is not None:
            self._refused(refused)
            raise RaceError(refused, core.MESSAGES[refused])
        if step is Step.OUT_OF_SYNC:
            self._refused(ErrorCode.OUT_OF_SYNC)
            code = ErrorCode.OUT_OF_SYNC
            self._error(s.send, m.Error(rid=msg.rid, code=code, message=core.MESSAGES[code], n=e.n))
            await self._send_state(s, rid)
            return
        if not checked and core.may_win(e.game, msg.move):
            # the end check, then the move decided again from the start, as after any wait
            await self._end_check(rid)
            return await self._move_slow(s, msg, checked=True)
        try:
            res = e.game.apply(msg.move)
        except rules.IllegalMove as exc:
            late = self._too_late(rid, e)
            if late is not None:
                self._refused(late)
                raise RaceError(late, core.MESSAGES[late]) from None
            self._refused(exc.code)
            raise RaceError(ErrorCode.ILLEGAL_MOVE, str(exc), reason=exc.code) from None
        self._send_move(s, msg, e, res, t0)

    def _race_deadline(self, rid: str) -> int | None:
        """The race's deadline as this process knows it (its end may not be stored yet)."""
        room = self.svc.local.get(rid)
        return room.deadline if room is not None else None

    def _past_deadline(self, rid: str) -> bool:
        deadline = self._race_deadline(rid)
        return deadline is not None and self.svc.now_ms() >= deadline

    def _too_late(self, rid: str, e: Entry) -> ErrorCode | None:
        return core.too_late(e, self.svc.now_ms(), self._race_deadline(rid))

    async def finish(self, s: Session, msg: m.Finish) -> None:
        svc = self.svc
        rid, pid = race_id(msg.race), s.player
        _now, race = await svc.store.load_race(rid)
        if race is None:
            raise no_such_race()
        if race.seat_of(pid) is None:
            raise not_in_race()
        key = (rid, pid)
        if race.status == RaceStatus.RUNNING:
            await self._end_check(rid)
        await self.settled(key)
        fut: asyncio.Future[MoveReply] = asyncio.get_running_loop().create_future()
        svc.store.moves.finish(rid, pid, fut.set_result)
        reply = await fut
        svc.games.pop(key, None)
        if type(reply) is Applied:
            s.send(encode(m.Ok(rid=msg.rid, ver=reply.ver)))
            if reply.live == 0:
                svc.tick_soon(rid)
            return
        self._answer(s, msg, reply)

    async def state(
        self, s: Session, rid: str, since: int | None, req_rid: int | None, invite: str | None = None
    ) -> m.State:
        store = self.svc.store
        _now, race = await store.load_race(race_id(rid))
        if race is None:
            raise no_such_race()
        pid = s.player
        privacy.check_see(race, pid, invite)
        you = None
        if race.seat_of(pid) is not None and race.status in (RaceStatus.RUNNING, RaceStatus.FINISHED):
            pg = (await store.load_player(rid, pid)).game
            if pg is not None:
                g = pg.game()
                playing = pg.status == PlayerStatus.PLAYING and race.status == RaceStatus.RUNNING
                you = m.You(
                    n=pg.n,
                    view=g.view_text(),
                    legal=g.legal_moves() if playing else [],
                    home=pg.home,
                    status=pg.status,
                )
        events = None
        if since is not None and privacy.may_see_events(race, pid):
            frames = await store.events_since(rid, since, self.svc.settings.resync_events)
            events = [msgspec.Raw(f) for f in frames] if frames is not None else None
        # The events go out as stored (pre-encoded frames, embedded as they are).
        snapshot = m.RaceSnapshot(invite=privacy.invite_for(race, pid), **R.snapshot(race))
        return m.State(rid=req_rid, race=snapshot, you=you, events=cast(Any, events))

    async def _send_state(self, s: Session, rid: str) -> None:
        try:
            await self.in_place(s, lambda: self.state(s, rid, None, None))
        except Exception as exc:
            self.svc.failed("could not send state", exc)

    async def resync(self, s: Session, msg: m.Resync) -> None:
        """The `state`, in its place among the race's live events (`in_place`)."""
        await self.in_place(s, lambda: self.state(s, msg.race, msg.since, msg.rid, msg.invite))

    async def in_place(self, s: Session, read: Callable[[], Awaitable[m.State]]) -> None:
        """Send `s` the `state` that `read` reads, in its place among the race's live events
        (docs/protocol.md §1 Versions). The reply's place is taken before the read: every event
        forwarded to the connection from then on goes out behind it, and every one sent before
        it is at or below what the read sees, since Redis stores an event before any process
        forwards it. Events the state holds may still follow it (this process's bus behind
        Redis) and are not dropped: a client may ask for a state for one part of its screen and
        leave the events to drive another, as the web client's arena panel does. A spectator's
        snapshot is ordered the same way (handlers/watch.py). Moves are not involved: a move of
        the connection is read only after its `resync` was answered (server/net/inbound.py)."""
        reply = s.later()
        try:
            st = await read()
        except BaseException:
            reply.settle()  # the error goes out behind what was queued
            raise
        reply(encode(st))
