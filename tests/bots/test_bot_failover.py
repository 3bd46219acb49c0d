"""A bot outlives its worker (docs/operations.md "Bots", failover), with real processes.

A bot seated in a running race whose worker is gone is picked up by a live worker
within seconds: it resumes with its own token and plays on from its position.

1. `solrace serve` with its one worker; the worker is killed (SIGKILL, not the server):
   the server starts another, and the bot moves again (a `bot` request's bot, and a
   lonely quick-match's, whose race the worker recorded once seated).
2. The whole `solrace serve` (private Redis, AOF in its data folder) is stopped
   (SIGTERM) and started again on the same folder: the bot moves again.
3. Two `solrace bots` workers; the one playing the bot stalls (SIGSTOP) past its lease,
   the other takes the bot over; the stalled one continues (SIGCONT), sees it lost the
   lease, and gives the bot up without a move: one worker plays the bot at a time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest
import redis
from redis_replies import text
from test_bot_worker import ask_bot, is_bot
from waiting import until

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(150)

ROOT = Path(__file__).resolve().parent.parent.parent
# A random bot: never declares itself stuck early; 300 ms a move: it plays on for minutes.
PACE = ("--bot-move-ms", "300", "--bot-think-ms", "20")
PACE_CLI = ("--move-ms", "300", "--think-ms", "20")  # the same, as `solrace bots` flags
BOTS_KEY = "{bots:requests}:bots"


async def bot_moves(c: client.Client, race: str) -> int:
    """The bot's move count, as the server has it now."""
    st = await c.resync(race)
    return next(p.n for p in st.race.players if is_bot(p.player))


async def race_with_a_moving_bot(url: str, name: str) -> tuple[client.Client, str, str]:
    """A running Racing Aces race (5 min) of a person and a random bot that has made 3 moves;
    the person's client (reconnecting), the race, the bot's player id."""
    c = client.connect(url, name=name, reconnect=True)
    await c.open()
    snap = await c.create("racing-aces", seats=2, time_limit_s=300, private=True)
    race = snap.race
    await ask_bot(c, race, "random")

    def bot_ready() -> str | None:
        s = c.races_seen.get(race)
        return next((p.player for p in s.players if is_bot(p.player) and p.ready), None) if s else None

    bot = await until(bot_ready, what="the bot seated and ready")
    await c.ready(race)
    await c.wait_for(m.Started, lambda ev: ev.race == race, timeout=30)
    await until(lambda: _at_least(c, race, 3), interval=0.1, what="3 moves of the bot")
    return c, race, bot


async def _at_least(c: client.Client, race: str, n: int) -> bool:
    return await bot_moves(c, race) >= n


async def moves_again(c: client.Client, race: str, what: str) -> int:
    """Once the bot's count stands still (its worker is gone), wait for it to grow again."""
    before = await bot_moves(c, race)
    n = await until(lambda: _grown(c, race, before), interval=0.2, what=what)
    return int(n)


async def _grown(c: client.Client, race: str, before: int) -> int:
    n = await bot_moves(c, race)
    return n if n > before else 0


def bot_workers(server: subprocess.Popen[str]) -> list[psutil.Process]:
    """The `solrace bots` processes a `solrace serve` started."""
    found = []
    for p in psutil.Process(server.pid).children():
        try:
            if "bots" in p.cmdline():
                found.append(p)
        except psutil.NoSuchProcess:
            pass
    return found


async def test_a_bot_moves_again_after_its_worker_is_killed(serve_process) -> None:
    url, proc = serve_process(*PACE)
    c, race, _bot = await race_with_a_moving_bot(url, "ada")
    try:
        [worker] = bot_workers(proc)
        worker.kill()  # SIGKILL: no goodbye, its leases just age
        await asyncio.to_thread(worker.wait, 10)
        await until(lambda: bot_workers(proc), what="the server starting another worker")
        await moves_again(c, race, "the bot moving again after its worker was killed")
        assert proc.poll() is None
    finally:
        await c.close()


async def test_a_quick_match_bot_moves_again_after_its_worker_is_killed(serve_process) -> None:
    """A lonely quick-match's bot: its worker recorded the race it was seated in."""
    url, proc = serve_process(*PACE, "--quick-bot-after-s", "1")
    async with client.connect(url, name="dot", reconnect=True) as c:
        await c.quick("racing-aces", seats=2)
        snap = await c.wait_for(m.RaceSnapshot, lambda s: len(s.players) == 2, timeout=30)
        race = snap.race
        await until(lambda: _at_least(c, race, 3), interval=0.1, what="3 moves of the bot")
        [worker] = bot_workers(proc)
        worker.kill()
        await asyncio.to_thread(worker.wait, 10)
        await moves_again(c, race, "the quick-match bot moving again")


async def test_a_bot_moves_again_after_the_server_restarts(serve_process, tmp_path) -> None:
    flags = ("--redis", "", "--data", str(tmp_path / "data"), *PACE)
    url, proc = serve_process(*flags)
    c, race, _bot = await race_with_a_moving_bot(url, "bea")
    token = c.token
    await c.close()
    proc.terminate()
    assert await asyncio.to_thread(proc.wait, 20) == 0
    url2, _proc2 = serve_process(*flags)  # the same data folder: its Redis comes back from the AOF
    async with client.connect(url2, token=token) as c2:
        assert race in (c2.welcome.races if c2.welcome else [])
        st = await c2.resync(race)
        assert st.race.status == m.RaceStatus.RUNNING
        await moves_again(c2, race, "the bot moving again after the server restarted")


class Worker:
    """A `solrace bots` process, its stderr read by a thread (so a stalled reader never blocks it)."""

    def __init__(self, url: str, redis_url: str) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "bots",
                "--url",
                url,
                "--max-bots",
                "2",
                *PACE_CLI,
                "--log-level",
                "DEBUG",
            ],
            cwd=ROOT,
            env={**os.environ, "SOLRACE_REDIS": redis_url},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "solrace bots: worker wXXXX, up to 2 bots"
        assert "worker " in line, line
        self.id = line.split("worker ", 1)[1].split(",")[0]
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def owner_of(r: redis.Redis, bot: str) -> str | None:
    """The worker holding the bot's lease, from its record ("EPOCH WORKER REQUEST")."""
    raw = r.hget(BOTS_KEY, bot)
    return None if raw is None else text(raw).split(" ", 2)[1]


def free_slots(r: redis.Redis, worker: str) -> int | None:
    raw = r.hget("{bots:requests}:slots", worker)
    return None if raw is None else int(raw.split()[0])


async def test_a_stalled_worker_gives_its_bot_up_to_the_one_that_took_it_over(
    serve_process, redis_url
) -> None:
    url, _proc = serve_process("--bot-workers", "0")
    workers = [Worker(url, redis_url), Worker(url, redis_url)]
    r = redis.Redis.from_url(redis_url)
    c = None
    try:
        c, race, bot = await race_with_a_moving_bot(url, "cyd")
        holder = owner_of(r, bot)
        stalled = next(w for w in workers if w.id == holder)
        other = next(w for w in workers if w is not stalled)
        os.kill(stalled.proc.pid, signal.SIGSTOP)
        # Its lease ends (5 s), the bot is re-queued; if the stalled worker's pending pop took
        # that request, it is re-queued again 10 s later, for the other one.
        await until(
            lambda: owner_of(r, bot) == other.id,
            timeout=60,
            interval=0.2,
            what="the other worker taking the bot",
        )
        await moves_again(c, race, "the bot moving again, played by the other worker")

        # The stalled worker wakes: it sees it lost the lease and gives the bot up, moving nothing.
        seen = len(stalled.lines)
        os.kill(stalled.proc.pid, signal.SIGCONT)
        try:
            await until(
                lambda: any("lost its lease" in line for line in stalled.lines[seen:]),
                what="the stalled worker giving the bot up",
            )
        except TimeoutError as e:
            raise AssertionError("".join(stalled.lines)[-4000:]) from e
        await until(lambda: free_slots(r, stalled.id) == 2, what="its slot free again")
        woke = stalled.lines[seen:]
        assert not [line for line in woke if f"bot {bot} moves" in line], woke
        assert owner_of(r, bot) == other.id
        n = await moves_again(c, race, "the bot still moving")
        assert n > 3
        assert any(f"bot {bot} moves" in line for line in other.lines)
    finally:
        if c is not None:
            await c.close()
        for w in workers:
            await asyncio.to_thread(w.stop)
        r.close()
