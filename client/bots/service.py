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
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

import client
from protocol import messages as m
from server.storage.bots import BotQueue, BotRequest, connect, is_bot, now_ms
from server.storage.health import OutageLog

from .online import BotResult, play_race
from .strategies import RandomStrategy, SearchStrategy, Strategy, make

log = logging.getLogger("solrace.bots")

RETRY_S = 1.0  # pause after a failed Redis call


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
        self.played = 0
        self.outages = OutageLog()  # Redis restarting: one line for the outage, not one per retry

    async def run(self, stop: asyncio.Event) -> None:
        """Take and play requests until `stop` is set; then end the bots in play."""
        redis = connect(self.redis_url)
        queue = BotQueue(redis)
        try:
            while not stop.is_set():
                if self.parent is not None and os.getppid() != self.parent:
                    log.info("the server that started this worker is gone: stopping")
                    break
                if len(self.running) >= self.limits.max_bots:
                    await self._wait_slot(stop)
                    continue
                try:
                    request = await self._next_request(queue, redis)
                except (RedisError, OSError) as e:
                    # Redis restarting or unreachable: the bots in play go on; ask again soon.
                    log.log(self.outages.level(), "bot requests: Redis: %s", e)
                    await asyncio.sleep(RETRY_S)
                    continue
                if request is None:
                    continue
                task = asyncio.create_task(self.play(request))
                self.running.add(task)
                task.add_done_callback(self.running.discard)
        finally:
            try:
                await queue.leave(self.worker)
            except (RedisError, OSError):
                pass  # its heartbeat ages out
            for task in list(self.running):
                task.cancel()
            if self.running:
                await asyncio.gather(*self.running, return_exceptions=True)
            await redis.aclose()

    async def _next_request(self, queue: BotQueue, redis: Any) -> BotRequest | None:
        """Report this worker's free slots, and take the oldest request (waiting up to a
        second); the slot it fills is reported at once (none for an expired request)."""
        await queue.heartbeat(self.worker, await now_ms(redis), self.limits.max_bots - len(self.running))
        raw = await queue.take(timeout_s=1)
        if raw is None:
            return None
        request = BotRequest.from_json(raw)
        now = await now_ms(redis)
        expired = bool(request.expires and request.expires < now)
        free = self.limits.max_bots - len(self.running) - (0 if expired else 1)
        try:
            await queue.taken(self.worker, free, now, raw)
        except (RedisError, OSError) as e:  # it counts as waiting until it expires; play it all the same
            log.log(self.outages.level(), "bot requests: Redis: %s", e)
        if expired:
            log.info("dropped an expired bot request for %s", request.race or request.game)
            return None
        return request

    async def _wait_slot(self, stop: asyncio.Event) -> None:
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({stopping, *self.running}, timeout=1, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()

    async def play(self, request: BotRequest) -> BotResult:
        """One bot: take its seat (or quick-match), play the race to its end, leave."""
        lim = self.limits
        result = BotResult(request.player)
        c = client.connect(self.urls, token=request.token, reconnect=True)
        try:
            await c.open()
            race = await self._seat(c, request)
            if race is None:
                return result
            snap = c.races_seen.get(race)
            time_limit_s = snap.time_limit_s if snap is not None else 7200
            strategy = strategy_for(request.level, lim.think_ms)
            playing = asyncio.create_task(play_race(c, race, strategy, result, lim.move_ms, lim.wait_s))
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
                return result
            try:
                playing.result()
            except TimeoutError:  # nobody started the race: give the seat back
                await _quietly(c.leave(race))
                return result
            await c.wait_for(m.End, lambda ev: ev.race == race, timeout=time_limit_s + 60)
            self.played += 1
        except (client.Disconnected, client.ServerError, TimeoutError, OSError) as e:
            log.info("bot %s in %s stopped: %s", request.player, request.race or request.game, e)
            result.errors.append(type(e).__name__)
        finally:
            await c.close()
        return result

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
