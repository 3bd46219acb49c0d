"""The `Certifier`: solver worker processes, the pools' background refill, the analysis cache.

The solver is CPU-bound pure Python: run on the event loop it would stall
every race of the process. So each solve goes to a `ProcessPoolExecutor`, and
the event loop only awaits its futures. There are two: the background work
below runs in `certify_workers` processes at niceness `certify_nice` (on a busy
machine the races go first and the pools wait), and what a player waits for
(a hint, an analysis) in `solver_request_workers` processes at the server's
own priority, so that it waits neither for a background batch nor behind the
races. With no request workers, requests go to the certify workers, and no
further background batch is queued while one waits.
The refill task keeps the pool of each game of `certified_games` (and of any
game a `create` asked a certified deal of) at `certify_pool` entries, one batch
of `certify_batch` seeds at a time. The short pools take turns (the one served
longest ago first), so a game that rarely certifies (Fours Up: about 1 seed in
55) gets its share of the worker and no more. A game that has certified
nothing in its first HOPELESS_AFTER seeds waits `certify_backoff_s` after each
empty batch, doubling up to an hour: with this solver it is not worth the worker.

Before the pools, the worker prepares the certified dailies (server/daily,
deals.py) of today and tomorrow for the same games: it walks the day's
candidate seeds k = 0, 1, 2, … a batch at a time and stores the first one
proved winnable, so that the day's first deal finds it ready.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker
from typing import Any, TypeVar

from protocol import rules as game_rules
from protocol.solver import Analysis, SolveResult
from protocol.solver.analysis import plan

from ..config import Settings
from ..daily.days import day_of
from ..daily.deals import DailyDeals
from ..storage.health import OutageLog, is_outage
from ..tasks import stop_task
from . import keys, pool, work
from .rules import certified_games

log = logging.getLogger("solrace.certify")

T = TypeVar("T")
MAX_BACKOFF_S = 3600.0
DAY_MS = 86_400_000
#: Candidates tried per daily before giving up on certifying it. Fours Up certifies
#: about 1 deal in 55 at the default budget (docs/bots.md): 256 candidates find one
#: on 99 days in 100 (64 found one on about 2 days in 3). The search runs in the
#: worker, a day ahead, so the cost (minutes of one worker's CPU) is off the races.
MAX_DAILY_CANDIDATES = 256


#: Seeds a game may try without one certified before its empty batches back off.
HOPELESS_AFTER = 256

#: Analyses (of distinct races) one process keeps waiting for a worker beside the ones
#: computing: one more `analysis` that would start a new one is refused at once (`solver-busy`),
#: so the queue, and the wait of the last analysis in it, stays short. Asked again, a refused
#: analysis is started once the queue has room; one already under way is always joined.
MAX_QUEUED_ANALYSES = 3


class Busy(Exception):
    """An analysis refused at once: its asker already has one under way, or the queue is full."""


def refill_order(games: set[str] | list[str], last_turn: dict[str, float]) -> list[str]:
    """The games in the order their pools are served: the one served longest ago first."""
    return sorted(games, key=lambda g: (last_turn.get(g, 0.0), g))


def hopeless(tried: int, certified: int) -> bool:
    """Whether a game's refill should back off after an empty batch: nothing certified in
    HOPELESS_AFTER seeds. A game that certifies rarely but at all keeps its turns."""
    return certified == 0 and tried >= HOPELESS_AFTER


def end_workers(executor: Executor, grace_s: float = 2.0) -> None:
    """Stop `executor` (a `ProcessPoolExecutor` of `workers`) without waiting for a solve
    in progress.

    `shutdown(wait=False)` alone is not enough: the interpreter's exit hook joins
    the pool's manager thread, which waits for each running task, and a search
    can run for minutes. So the workers are killed first (waited for up to `grace_s`
    each), and only then is the executor shut down.
    """
    # ProcessPoolExecutor has no public way to end its workers before Python 3.14.
    procs = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    # SIGKILL: a worker ignores SIGTERM (work.start_worker) and holds nothing to save.
    for proc in procs:
        if proc.is_alive():
            proc.kill()
    for proc in procs:
        proc.join(grace_s)
    executor.shutdown(wait=True)


class NoWorker(Exception):
    """The server runs without solver workers (`certify_workers` and `solver_request_workers` 0)."""


def workers(count: int, nice: int) -> ProcessPoolExecutor:
    """`count` solver worker processes at niceness `nice`, ended with this process."""
    # spawn: the worker must not inherit the event loop, its sockets or threads.
    return ProcessPoolExecutor(
        max_workers=count,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=work.start_worker,
        initargs=(os.getpid(), nice),
    )


class Certifier:
    def __init__(
        self,
        redis: Any,
        settings: Settings,
        seed_factory: Callable[[], str] = game_rules.random_seed,
        daily: DailyDeals | None = None,
    ):
        self.redis = redis
        self.settings = settings
        self.seed_factory = seed_factory
        self.default_games = certified_games(settings.certified_games)
        # The games whose pools this process refills: the defaults, and any game a
        # `create` asked a certified deal of (from then on, ahead of the next demand).
        self.pool_games = set(self.default_games)
        # `workers` pools; only what every `Executor` has is used (a test runs a thread pool).
        self.executor: Executor | None = None
        self.request_executor: Executor | None = None
        self.task: asyncio.Task[None] | None = None
        # Checked by the refill loop as well as cancelling it: a cancellation that
        # lands while a solve's future settles can be lost, the flag cannot.
        self.stopping = asyncio.Event()
        self.wake = asyncio.Event()
        self.backoff: dict[str, float] = {}
        self.next_try: dict[str, float] = {}
        self.last_turn: dict[str, float] = {}  # game -> when its pool last had a batch
        self.running: dict[str, asyncio.Future[list[dict[str, Any]]]] = {}
        # player -> the race of the analysis that player's request started, while it is under way:
        # one at a time per player (in this process), so one player cannot fill the queue.
        self.started_by: dict[str, str] = {}
        # Analyses go to the workers one solver run at a time, at most `analysis_slots`
        # at once: a hint (never gated) waits for no more analysis work than those, whatever
        # the queue; with several workers one is always left to hints.
        self.analysis_slots = max(1, self.request_workers() - 1)
        self.analysis_gate = asyncio.Semaphore(self.analysis_slots)
        # Counters for the benchmark and the logs: seeds tried and certified per game.
        self.tried: dict[str, int] = {}
        self.certified: dict[str, int] = {}
        self.daily = daily
        self.daily_next: dict[tuple[str, str], int] = {}  # (game, date) -> next candidate k
        self.outages = OutageLog()
        # With no request workers, requests a player waits for (analysis, hints) go before the
        # background refills: the refill loop submits nothing while one is waiting or running, so
        # one waits at most for the background batch already in the worker.
        self.asking = 0
        self.nobody_asking = asyncio.Event()
        self.nobody_asking.set()
        # Pools whose worker died (killed, the OOM killer), being ended in a thread.
        self.retiring: set[asyncio.Future[None]] = set()

    def request_workers(self) -> int:
        """The worker processes a player's request (hint, analysis) may run in."""
        st = self.settings
        return st.solver_request_workers if st.solver_request_workers > 0 else st.certify_workers

    async def start(self) -> None:
        st = self.settings
        if st.solver_request_workers > 0:
            # The request workers start with the first request; the tracker of their queues'
            # semaphores starts now, while stderr is the process's own (it hands it on).
            resource_tracker.ensure_running()
        if st.certify_workers <= 0:
            return
        self.executor = workers(st.certify_workers, st.certify_nice)
        self.task = asyncio.get_running_loop().create_task(self.refill_loop())

    async def stop(self) -> None:
        # The workers end first: a refill task waiting on a running solve only
        # returns once that solve is over (or its worker is gone).
        self.stopping.set()
        if self.task is not None:
            self.task.cancel()
        for name in ("executor", "request_executor"):
            executor = getattr(self, name)
            if executor is not None:
                setattr(self, name, None)
                await asyncio.to_thread(end_workers, executor)
        if self.retiring:
            await asyncio.gather(*self.retiring, return_exceptions=True)
        await stop_task(self.task)

    def broken(self, name: str, executor: Executor) -> bool:
        """After a `BrokenProcessPool` of `executor` (a worker died: killed, the OOM killer):
        the pool is unusable for good, so it is retired and the next job gets a new one (the
        request workers on the next request, the certify workers at once). One line per
        death, no traceback. False when stopping (the stop ends the workers itself)."""
        if self.stopping.is_set() or getattr(self, name) is not executor:
            return False  # the stop's doing, or another job of the same pool said it already
        log.warning(
            "a solver worker process ended unexpectedly (killed?): its job failed; starting new %s workers",
            "request" if name == "request_executor" else "certify",
        )
        st = self.settings
        setattr(self, name, workers(st.certify_workers, st.certify_nice) if name == "executor" else None)
        retired = asyncio.ensure_future(asyncio.to_thread(end_workers, executor))
        self.retiring.add(retired)
        retired.add_done_callback(self.retiring.discard)
        return True

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in a worker process; the event loop only waits for it."""
        executor = self.executor
        if executor is None:
            raise NoWorker("this server runs no solver worker")
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            self.broken("executor", executor)
            raise

    async def ask(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` for a request a player waits for: in a request worker, or else in a
        certify worker with no background batch queued meanwhile."""
        if self.settings.solver_request_workers > 0 and not self.stopping.is_set():
            if self.request_executor is None:
                # Made on the first request: an executor never used leaves its queues'
                # semaphores to the resource tracker's warning at exit.
                self.request_executor = workers(self.settings.solver_request_workers, 0)
            executor = self.request_executor
            try:
                return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
            except BrokenProcessPool:
                self.broken("request_executor", executor)
                raise
        self.asking += 1
        self.nobody_asking.clear()
        try:
            return await self.run(fn, *args)
        finally:
            self.asking -= 1
            if not self.asking:
                self.nobody_asking.set()

    # --- certified deals -------------------------------------------------------------

    def wanted(self, game: str, requested: bool | None) -> bool:
        """Whether a new race of `game` should be certified: `create` says so
        (`winnable`), quick-match (None) follows the `certified_games` setting."""
        return requested if requested is not None else game in self.default_games

    async def deal(self, game: str, requested: bool | None) -> tuple[str, list[str]] | None:
        """A certified deal from the pool, or None (not wanted, or the pool is
        empty: the race gets an ordinary deal). Never waits on the solver."""
        if not self.wanted(game, requested):
            return None
        self.pool_games.add(game)
        entry = await pool.take(self.redis, game)
        self.wake.set()
        return entry

    async def prepare_daily_once(self) -> bool:
        """One batch of candidates for the first daily (today, tomorrow) of a
        certified game not yet decided; False if there is none."""
        daily = self.daily
        if daily is None:
            return False
        now = daily.clock()
        st = self.settings
        for date in (day_of(now), day_of(now + DAY_MS)):
            for game in sorted(self.default_games):
                start = self.daily_next.get((game, date), 0)
                if start >= MAX_DAILY_CANDIDATES or await daily.certified_known(game, date):
                    continue
                seeds = await daily.candidates(game, date, start, st.certify_batch)
                found = await self.run(work.certify_first, game, seeds, st.certify_nodes)
                self.daily_next[(game, date)] = start + len(seeds)
                if found is not None:
                    k, line = found
                    await daily.store_certified(game, date, start + k, line)
                return True
        return False

    async def refill_once(self) -> bool:
        """One batch for the short pool served longest ago; False if none is short."""
        st = self.settings
        for game in refill_order(self.pool_games, self.last_turn):
            if time.monotonic() < self.next_try.get(game, 0.0):
                continue
            if await pool.size(self.redis, game) >= st.certify_pool:
                continue
            self.last_turn[game] = time.monotonic()
            seeds = [self.seed_factory() for _ in range(st.certify_batch)]
            found = await self.run(work.certify, game, seeds, st.certify_nodes)
            await pool.add(self.redis, game, found)
            self.tried[game] = self.tried.get(game, 0) + len(seeds)
            self.certified[game] = self.certified.get(game, 0) + len(found)
            if found or not hopeless(self.tried[game], self.certified[game]):
                self.backoff.pop(game, None)
            else:
                wait = min(MAX_BACKOFF_S, self.backoff.get(game, st.certify_backoff_s / 2) * 2)
                self.backoff[game] = wait
                self.next_try[game] = time.monotonic() + wait
            return True
        return False

    async def refill_loop(self) -> None:
        while not self.stopping.is_set():
            await self.nobody_asking.wait()
            try:
                worked = await self.prepare_daily_once() or await self.refill_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.stopping.is_set():
                    return
                if isinstance(exc, BrokenProcessPool):
                    pass  # a worker died: run() said so in one line and made new workers
                elif is_outage(exc):  # Redis restarting: one line for the outage, not one a second
                    log.log(self.outages.level(), "certified pool refill failed: %s", exc)
                else:
                    log.warning("certified pool refill failed", exc_info=True)
                worked = False
                await asyncio.sleep(1.0)
            if not worked:
                self.wake.clear()
                try:
                    async with asyncio.timeout(1.0):
                        await self.wake.wait()
                except TimeoutError:
                    pass

    # --- analysis --------------------------------------------------------------------

    async def analysis(
        self,
        race: str,
        game: str,
        seed: str,
        players: list[tuple[str, str, list[str]]],
        asker: str = "",
    ) -> list[dict[str, Any]]:
        """The analysis of a finished race: from the cache, else computed once in a
        worker (concurrent requests here share the run) and cached.

        Raises Busy, starting nothing, for a new analysis asked by `asker` while one that
        `asker` started is still under way, or while MAX_QUEUED_ANALYSES wait for a worker
        beside the ones computing (`analysis_slots`)."""
        cached = await self.redis.get(keys.analysis(race))
        if cached is not None:
            return list(json.loads(cached))
        running = self.running.get(race)
        if running is None:
            if asker and asker in self.started_by:
                raise Busy("your analysis of another race is still under way: ask again once it is done")
            if len(self.running) >= self.analysis_slots + MAX_QUEUED_ANALYSES:
                raise Busy(f"{len(self.running)} analyses are under way already: ask again")
            running = asyncio.ensure_future(self._analyze(race, game, seed, players))
            self.running[race] = running
            if asker:
                self.started_by[asker] = race

            def done(f: asyncio.Future[list[dict[str, Any]]]) -> None:
                self.running.pop(race, None)
                if asker and self.started_by.get(asker) == race:
                    del self.started_by[asker]
                # Every request may have stopped waiting (`analysis_wait_s`): say why it failed.
                exc = None if f.cancelled() else f.exception()
                if exc is not None and not isinstance(exc, BrokenProcessPool):  # broken() said that
                    log.warning("analysis of race %s failed", race, exc_info=exc)

            running.add_done_callback(done)
        return await asyncio.shield(running)

    async def _analyze(
        self, race: str, game: str, seed: str, players: list[tuple[str, str, list[str]]]
    ) -> list[dict[str, Any]]:
        # One solver run per worker job (the analysis's `plan` says which position is next): a
        # hint asked meanwhile waits for one run at most, not for a player's whole analysis.
        # Every player's first run is the deal: solved once per race.
        start = game_rules.deal(game, seed)
        deal: SolveResult | None = None
        out: list[dict[str, Any]] = []
        for player, name, moves in players:
            steps = plan(start, moves)
            try:
                at = next(steps)
                while True:
                    if at == 0 and deal is not None:
                        result = deal
                    else:
                        async with self.analysis_gate:
                            status, line, spent, seconds = await self.ask(
                                work.solve_after, game, seed, moves[:at], self.settings.analysis_nodes
                            )
                        result = SolveResult(status, tuple(line), spent, seconds)
                        if at == 0:
                            deal = result
                    at = steps.send(result)
            except StopIteration as done:
                out.append(analysis_entry(player, name, done.value))
        await self.redis.set(keys.analysis(race), json.dumps(out), ex=self.settings.finished_ttl_s)
        return out


def analysis_entry(player: str, name: str, a: Analysis) -> dict[str, Any]:
    """One player's entry of the `analysis` reply (docs/protocol.md §3)."""
    return {
        "player": player,
        "name": name,
        "verdict": a.verdict,
        "text": a.text(),
        "last_winnable": a.last_winnable,
        "first_lost": a.first_lost,
        "losing_move": a.losing_move,
        "line": list(a.line),
    }
