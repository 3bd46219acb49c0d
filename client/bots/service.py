"""`solrace bots`: a worker process that plays the bots a server asks for.

The server never plays a bot itself: a `bot` request (or a quick-match that
found nobody) makes it mint the bot's identity and push a request on a Redis
list (server/storage/bots.py). A worker pops requests while it has a free
slot and plays each one as an ordinary client over the protocol (the client
library, with reconnect), with a client/bots strategy. So the CPU a bot
spends never touches the server's event loop, and a worker bounds it:

- at most ``max_bots`` bots at once (a worker with no free slot takes no
  request; the server counts the free slots the workers report, and answers
  ``no-bots`` when the requests already waiting use them all);
- ``think_ms``: the time budget of each search move (random and greedy
  choose in well under a millisecond);
- ``move_ms``: the pause between a bot's moves (its pace against people);
- ``wait_s``: how long a bot waits for its race to start (or for a
  quick-match group) before it leaves; it leaves at once a lobby where
  only bots remain.

While it has a free slot, a worker reports its free slots (and a heartbeat) in
Redis each time it asks for work (about every second), and it reports the slot
a request fills in the same step as that request leaves the queue's ``taking``
list (server/storage/bots.py), which is how the server knows a bot can be had.

A bot outlives its worker (server/storage/bots.py "Leases"): the worker records
each bot it takes under a lease it renews every second; a worker that stops
releases its bots, one killed lets their leases age, and every worker re-queues
the bots whose lease ended as ``resume`` requests. The worker that claims one
says hello with the bot's token, finds its seat among the races the welcome
lists, resyncs and plays on from there; no seat, nothing is started. A bot's
connection sends nothing while its lease is not known to hold, and a worker
that finds another one holding its bot gives it up.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from redis.exceptions import RedisError

import client
from protocol import messages as m
from server.storage.bots import (
    RESUME,
    BotQueue,
    BotRequest,
    connect,
    is_bot,
    now_ms,
)
from server.storage.health import OutageLog

from .lease import BotClient, Lease
from .online import BotResult, play_race
from .stopping import ended
from .strategies import RandomStrategy, SearchStrategy, Strategy, make

log = logging.getLogger("solrace.bots")

RETRY_S = 1.0  # pause after a failed Redis call
RENEW_S = 1.0  # interval of the lease renewals (and of the re-queueing of orphaned bots)
PLAY_AGAIN_S = 1.0  # pause before playing on after the bot's play stopped short
STATE_TRIES = 30  # resyncs tried (a second apart while disconnected) before the bot is released
# A stopping worker cancels its tasks again while they run on (stopping.py): the lease keeper
# this often (it has nothing to clean up), a bot less often (its connection's close may take a
# while).
KEEPER_CANCEL_AGAIN_S = 1.0
BOT_CANCEL_AGAIN_S = 5.0


@dataclass(frozen=True, slots=True)
class Limits:
    max_bots: int = 4
    think_ms: int = 100
    move_ms: int = 700
    wait_s: int = 600


def strategy_for(level: str, think_ms: int) -> Strategy:
    """A bot of `level`, within the per-move budget."""
    if level == "search":
        return SearchStrategy(time_ms=think_ms)
    if level == "random":
        return RandomStrategy()
    return make(level)


class BotService:
    def __init__(
        self, url: str | Sequence[str], redis_url: str, limits: Limits, parent: int | None = None
    ) -> None:
        self.urls = [url] if isinstance(url, str) else list(url)
        # Started by `solrace serve` (its pid): stop when it is gone, even if it was killed.
        self.parent = parent
        self.redis_url = redis_url
        self.limits = limits
        self.worker = "w" + secrets.token_hex(6)
        self.running: set[asyncio.Task[BotResult]] = set()
        self.leases: dict[asyncio.Task[BotResult], Lease] = {}
        self.played = 0
        self.outages = OutageLog()  # Redis restarting: one line for the outage, not one per retry
        self._orphan_said = False

    def orphaned(self) -> bool:
        """Whether the server that started this worker (`parent`) is gone: the worker then
        has a parent of another pid. Said once in the log, whichever loop notices first."""
        if self.parent is None or os.getppid() == self.parent:
            return False
        if not self._orphan_said:
            self._orphan_said = True
            log.info("the server that started this worker is gone: stopping")
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Take and play requests until `stop` is set; then end the bots in play, and
        release their leases (live workers resume them at once)."""
        redis = connect(self.redis_url)
        queue = BotQueue(redis)
        keeper = asyncio.create_task(self._keep_leases(queue, redis))
        try:
            while not stop.is_set():
                if self.orphaned():
                    break
                if len(self.running) >= self.limits.max_bots:
                    await self._wait_slot(stop)
                    continue
                try:
                    taken = await self._next_request(queue, redis)
                except (RedisError, OSError) as e:
                    # Redis restarting or unreachable: the bots in play go on (while their
                    # leases hold, LEASE_MS); ask again soon.
                    log.log(self.outages.level(), "bot requests: Redis: %s", e)
                    await asyncio.sleep(RETRY_S)
                    continue
                if taken is None:
                    continue
                request, lease = taken
                task = asyncio.create_task(self._bot(queue, request, lease))
                self.running.add(task)
                self.leases[task] = lease
                task.add_done_callback(self._forget)
        finally:
            await ended([keeper], KEEPER_CANCEL_AGAIN_S)
            held = [(lease.bot, lease.epoch) for lease in self.leases.values() if not lease.lost]
            try:
                await queue.leave(self.worker)
            except (RedisError, OSError):
                pass  # its heartbeat ages out
            await ended(list(self.running), BOT_CANCEL_AGAIN_S)
            try:
                # The bots keep their seats: their leases end now, so a live worker resumes them.
                await queue.settle(self.worker, held, drop=False)
            except (RedisError, OSError):
                pass  # they age out
            await redis.aclose()

    def _forget(self, task: asyncio.Task[BotResult]) -> None:
        self.running.discard(task)
        self.leases.pop(task, None)

    async def _next_request(self, queue: BotQueue, redis: Any) -> tuple[BotRequest, Lease] | None:
        """Report this worker's free slots, and take the oldest request (waiting up to a
        second): the bot is recorded under this worker's lease (a resumed bot: claimed, if
        no other worker has it) and the slot it fills reported in the same step."""
        free = self.limits.max_bots - len(self.running)
        raw = await self._report_and_take(queue, free)
        if raw is None:
            return None
        since = time.monotonic()
        try:
            asked: BotRequest | None = BotRequest.from_json(raw)
        except (ValueError, TypeError, KeyError):
            asked = None  # malformed: the claim drops it
        resumed = asked is not None and asked.kind == RESUME
        try:
            epoch, request, why = await queue.claim(self.worker, free, await now_ms(redis), raw)
        except (RedisError, OSError) as e:
            # Unknown whether it was recorded: if so its lease ages and it is resumed, else
            # the request leaves `taking` once expired.
            log.log(self.outages.level(), "bot request not taken: Redis: %s", e)
            return None
        if request is None:
            what = "?" if asked is None else f"{asked.kind} {asked.player} {asked.race or asked.game}"
            log.info("dropped a bot request (%s): %s", what, why)
            return None
        if resumed:
            log.info("resuming bot %s in %s", request.player, request.race or request.game)
        return request, Lease(request, epoch, resumed, since)

    async def _report_and_take(self, queue: BotQueue, free: int) -> bytes | None:
        """Report the `free` slots (and the heartbeat) while the pop waits up to a second for a
        request: the oldest request, or None. The server counts a report for WORKER_ALIVE_MS
        (5 s). Reported before the pop, one call after the other (the Redis clock, the
        slots, the heartbeat, then the pop's second), a loaded machine spaced the reports
        5.7 s apart, and the server refused a `bot` with `no-bots` while this worker waited
        with a free slot. Beside the pop, stamped by the Redis clock as it is written, a
        report is one round trip, and the pop's second is no longer added to it.

        Both are awaited before the claim of a request popped meanwhile, so the claim's
        report of the slot it fills is never overwritten by this one. A request popped while
        the report failed is still claimed (the claim reports the slots too); a failed pop
        raises, as does a failed report with nothing popped."""
        report = asyncio.ensure_future(queue.heartbeat(self.worker, None, free))
        try:
            raw = await queue.take(timeout_s=1)
        except BaseException:
            report.cancel()
            await asyncio.gather(report, return_exceptions=True)
            raise
        try:
            await report
        except (RedisError, OSError) as e:
            if raw is None:
                raise
            log.log(self.outages.level(), "bot worker's report: Redis: %s (the request popped is claimed)", e)
        return raw

    async def _keep_leases(self, queue: BotQueue, redis: Any) -> None:
        """Each second: renew the leases of the bots played here (a bot whose lease another
        worker holds now is given up at once), and re-queue the bots whose lease has ended,
        here or anywhere (server/storage/bots.py "Leases")."""
        while True:
            since = time.monotonic()
            try:
                now = await now_ms(redis)
                held = [(t, lease) for t, lease in self.leases.items() if not (lease.lost or lease.done)]
                replies = await queue.renew(self.worker, [(lease.bot, lease.epoch) for _, lease in held], now)
                for (task, lease), reply in zip(held, replies):
                    if reply < 0 and not lease.done:
                        # No record: Redis lost it (a failover), or the worker that took the bot
                        # over dropped it, through with its race; either way no other worker
                        # holds the bot (a claim needs the record): write it again.
                        reply = 1 if await queue.put(self.worker, lease.epoch, lease.request, now) else 0
                    if reply > 0:
                        lease.renewed(since)
                    elif not lease.done:
                        lease.lost = True
                        task.cancel()
                        log.info("bot %s lost its lease (another worker plays it now): given up", lease.bot)
                await queue.rescue(now)
                # A request a stalled worker popped and never claimed goes back to the queue.
                await queue.retake(now)
            except (RedisError, OSError) as e:
                log.log(self.outages.level(), "bot leases: Redis: %s", e)
            await asyncio.sleep(RENEW_S)

    async def _wait_slot(self, stop: asyncio.Event) -> None:
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({stopping, *self.running}, timeout=1, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()

    async def _bot(self, queue: BotQueue, request: BotRequest, lease: Lease) -> BotResult:
        """Play one bot; then drop its record (through with its race) or release its lease
        (stopped short of that: a worker resumes it)."""
        result = BotResult(request.player)
        try:
            through = await self.play(request, result, lease, queue)
        except Exception:  # a bug: not resumed over and over
            log.exception("bot %s failed", request.player)
            through = True
        lease.done = True
        if not lease.lost:
            try:
                await queue.settle(self.worker, [(lease.bot, lease.epoch)], drop=through)
            except (RedisError, OSError) as e:
                log.log(self.outages.level(), "bot %s: Redis: %s (its lease ages out)", lease.bot, e)
        return result

    async def play(self, request: BotRequest, result: BotResult, lease: Lease, queue: BotQueue) -> bool:
        """One bot: take its seat (or quick-match), or find it again (resumed), play the race
        to its end, leave. True: through with it (the race ended, the seat was given back or
        refused); False: stopped short (the connection lost), to be resumed."""
        c = BotClient(self.urls, token=request.token, reconnect=True)
        c.lease = lease
        try:
            await c.open()
            race = await (self._resume(c, request) if lease.resumed else self._seat(c, request))
            if race is None:
                return True
            if race != lease.request.race:  # a quick-match seat: the record learns its race
                lease.request = replace(lease.request, race=race)
                await self._record(queue, lease)
            return await self._race(c, race, request, result)
        except client.ServerError as e:
            log.info("bot %s in %s stopped: %s", request.player, request.race or request.game, e)
            result.errors.append(e.code)
            return True
        except (client.Disconnected, TimeoutError, OSError) as e:
            log.info("bot %s in %s stopped: %s", request.player, request.race or request.game, e)
            result.errors.append(type(e).__name__)
            return False
        finally:
            await c.close()

    async def _record(self, queue: BotQueue, lease: Lease) -> None:
        if not lease.holds():
            return
        try:
            await queue.put(self.worker, lease.epoch, lease.request, await now_ms(queue.redis))
        except (RedisError, OSError) as e:  # a resume then finds the seat among the bot's races
            log.log(self.outages.level(), "bot %s: Redis: %s", lease.bot, e)

    async def _seat(self, c: client.Client, request: BotRequest) -> str | None:
        if request.kind == "race":
            await c.join(request.race, invite=request.invite or None)
            await c.ready(request.race)
            return request.race
        await c.quick(request.game, seats=request.seats)
        me = c.player

        def seated(snap: m.RaceSnapshot) -> bool:
            return snap.game == request.game and any(p.player == me for p in snap.players)

        try:
            snap = await c.wait_for(m.RaceSnapshot, seated, timeout=self.limits.wait_s)
        except TimeoutError:
            await _quietly(c.unqueue(request.game))
            return None
        return str(snap.race)

    async def _resume(self, c: client.Client, request: BotRequest) -> str | None:
        """A resumed bot's seat: its race, if the server still seats it there (its welcome
        lists the player's unfinished races), else None (nothing is started). A quick-match
        bot that was not seated yet looks for its race there, or queues again."""
        races = c.welcome.races
        if request.race:
            if request.race not in races:
                log.info("bot %s: race %s is over, nothing to resume", request.player, request.race)
                return None
            if request.invite:
                c.invites[request.race] = request.invite
            return request.race
        for race in races:
            if (await c.resync(race)).race.game == request.game:
                return race
        return await self._seat(c, request)

    async def _race(self, c: client.Client, race: str, request: BotRequest, result: BotResult) -> bool:
        """Play the bot's seat from where it stands (a lobby, a countdown, a running race:
        the server's state says) to the race's end. True: through with it."""
        lim = self.limits
        strategy = strategy_for(request.level, lim.think_ms)
        state = await self._state(c, race)
        while True:
            if state is None or state.race.status == m.RaceStatus.FINISHED:
                self.played += state is not None
                return True
            snap = state.race
            if snap.status == m.RaceStatus.RUNNING and (
                state.you is None or state.you.status != m.PlayerStatus.PLAYING
            ):
                break  # won, declared finished, or out of time: the end comes
            if snap.status == m.RaceStatus.LOBBY:
                if _abandoned(race)(snap):
                    await _quietly(c.leave(race))  # every person left the lobby: so does the bot
                    return True
                if not any(p.player == c.player and p.ready for p in snap.players):
                    await c.ready(race)
            started = snap.status == m.RaceStatus.RUNNING
            playing = asyncio.create_task(
                play_race(c, race, strategy, result, lim.move_ms, lim.wait_s, started=started)
            )
            alone = asyncio.create_task(c.wait_for(m.RaceSnapshot, _abandoned(race), timeout=None))
            try:
                await asyncio.wait({playing, alone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopped = not playing.done()  # by `alone`, or by this task's cancellation
                # Neither is left running, and both outcomes are read (a lost connection too).
                playing.cancel()
                alone.cancel()
                await asyncio.gather(playing, alone, return_exceptions=True)
            if stopped:
                lost = None if alone.cancelled() else alone.exception()
                if lost is not None:
                    raise lost  # the connection is gone, not the people of the lobby
                await _quietly(c.leave(race))  # every person left the lobby: so does the bot
                return True
            try:
                playing.result()
            except TimeoutError:  # nobody started the race: give the seat back
                await _quietly(c.leave(race))
                return True
            # Won, declared finished, or stopped by an error (a connection lost for longer
            # than its retries, the clock): the server says which; play on if it is still on.
            state = await self._state(c, race)
            if state is not None and state.you is not None and state.you.status == m.PlayerStatus.PLAYING:
                await asyncio.sleep(PLAY_AGAIN_S)
        time_limit_s = snap.time_limit_s
        await c.wait_for(m.End, lambda ev: ev.race == race, timeout=time_limit_s + 60)
        self.played += 1
        return True

    async def _state(self, c: client.Client, race: str) -> m.State | None:
        """The race and the bot's seat as the server has them now (None: the race is gone),
        asked again while the connection comes back."""
        for _ in range(STATE_TRIES):
            try:
                state: m.State = await c.resync(race)
                return state
            except client.ServerError as e:
                if e.code == m.ErrorCode.NO_SUCH_RACE:
                    return None
                raise
            except (client.Disconnected, TimeoutError):
                if c.closed:
                    raise
                await asyncio.sleep(RETRY_S)
        raise TimeoutError(f"no state of {race}")


def _abandoned(race: str) -> Callable[[m.RaceSnapshot], bool]:
    """A snapshot of `race` still in its lobby with nobody but bots in it."""

    def test(snap: m.RaceSnapshot) -> bool:
        return (
            snap.race == race
            and snap.status == m.RaceStatus.LOBBY
            and all(is_bot(p.player) for p in snap.players)
        )

    return test


async def _quietly(request: Awaitable[object]) -> None:
    try:
        await request
    except (client.Disconnected, client.ServerError, TimeoutError):
        pass
