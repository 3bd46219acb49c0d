"""The bot worker with real processes: `solrace serve` (which starts one `solrace bots`
worker) on a real Redis, and people as protocol clients. A race with a bot is created,
played by both to its end, and ranked; a lonely quick-match gets a bot; a rematch of a
bot race seats a new bot of the same level."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from waiting import until

import client
from client.bots.online import BotResult, play_race
from client.bots.strategies import GreedyStrategy
from protocol import messages as m
from protocol.messages.client_messages import BotLevel
from server import botworkers

pytestmark = pytest.mark.timeout(120)

FAST_BOTS = ("--bot-move-ms", "0", "--bot-think-ms", "20")


def is_bot(pid: str) -> bool:
    return pid.startswith("bot-")


async def ask_bot(c: client.Client, race: str, level: BotLevel) -> None:
    """`bot`, once the worker has said it is there (it starts with the server)."""

    async def asked() -> bool:
        try:
            await c.request(m.Bot(race=race, level=level))
        except client.ServerError as e:
            if e.code != "no-bots":
                raise
            return False
        return True

    await until(asked, interval=0.2, what="a bot worker")


def seated_bot(c: client.Client, race: str) -> m.PlayerInfo | None:
    snap = c.races_seen.get(race)
    if snap is None:
        return None
    return next((p for p in snap.players if is_bot(p.player) and p.ready), None)


async def play_to_the_end(c: client.Client, race: str) -> m.End:
    result = BotResult("me")
    await play_race(c, race, GreedyStrategy(), result)
    assert result.errors == [], result
    end: m.End = await c.wait_for(m.End, lambda ev: ev.race == race, timeout=90)
    return end


async def test_a_person_races_a_bot_to_the_end_and_rematches(serve_process) -> None:
    url, _proc = serve_process(*FAST_BOTS)
    async with client.connect(url, name="ada") as c:
        snap = await c.create("fours-up", seats=2, time_limit_s=60, private=True)
        race = snap.race
        await ask_bot(c, race, "search")
        bot = await until(lambda: seated_bot(c, race), what="the bot seated and ready")
        assert bot.name == "Search bot"
        await c.ready(race)
        end = await play_to_the_end(c, race)
        assert {r.player for r in end.ranking} == {c.player, bot.player}
        assert sorted(r.rank for r in end.ranking)[0] == 1
        assert all(r.status in ("won", "finished") for r in end.ranking), end.ranking

        # Rematch: a new race with the same settings, and a new bot of the same level.
        again = await c.request(m.Rematch(race=race))
        assert again.race != race and again.host == c.player
        assert (again.game, again.seats, again.time_limit_s, again.private) == ("fours-up", 2, 60, True)
        assert await c.request(m.Rematch(race=race)) is not None  # asking twice: the same race
        assert c.races_seen[again.race].race == again.race
        bot2 = await until(lambda: seated_bot(c, again.race), what="a bot in the rematch")
        assert bot2.player != bot.player and bot2.name == "Search bot"


async def test_a_lonely_quick_match_gets_a_bot(serve_process) -> None:
    url, _proc = serve_process(*FAST_BOTS, "--quick-bot-after-s", "1")
    async with client.connect(url, name="bob") as c:
        assert c.limits["QUICK_BOT_AFTER_S"] == 1
        await c.quick("racing-aces", seats=2)
        snap = await c.wait_for(m.RaceSnapshot, lambda s: len(s.players) == 2, timeout=30)
        assert [is_bot(p.player) for p in snap.players].count(True) == 1
        end = await play_to_the_end(c, snap.race)
        assert len(end.ranking) == 2


async def test_the_bot_worker_runs_at_the_bot_niceness(serve_process) -> None:
    _url, proc = serve_process("--bot-nice", "3")
    server = psutil.Process(proc.pid)

    def worker() -> psutil.Process | None:
        return next((c for c in server.children() if "bots" in c.cmdline()), None)

    bots = await until(worker, what="the bot worker")
    await until(lambda: bots.nice() == server.nice() + 3, what="the worker's niceness")


async def test_modules_in_the_servers_working_directory_do_not_break_its_worker(
    serve_process, tmp_path
) -> None:
    """An operator's `secrets.py` beside the data folder: with `python -m` run in that folder,
    the worker imported it instead of the standard library's and died at once, again and
    again. It runs in the folder of the `client` package (server/botworkers.py)."""
    (tmp_path / "secrets.py").write_text("raise ImportError('the operator secrets.py was imported')\n")
    url, proc = serve_process(*FAST_BOTS, cwd=tmp_path)
    async with client.connect(url, name="fay") as c:
        snap = await c.create("racing-aces", seats=2, private=True)
        await ask_bot(c, snap.race, "greedy")
        await until(lambda: seated_bot(c, snap.race), what="the bot seated")
    worker = next(p for p in psutil.Process(proc.pid).children() if "bots" in p.cmdline())
    assert Path(worker.cwd()) == botworkers.WORKER_CWD


def test_a_worker_that_keeps_dying_young_is_restarted_less_and_less_often() -> None:
    pauses = [botworkers.restart_pause(young) for young in range(8)]
    assert pauses[:5] == [2.0, 2.0, 4.0, 8.0, 16.0]
    assert pauses[-1] == botworkers.RESTART_PAUSE_MAX_S == 60.0


async def test_no_worker_no_bot(serve_process) -> None:
    url, _proc = serve_process("--bot-workers", "0")
    async with client.connect(url, name="cyd") as c:
        snap = await c.create("fours-up", seats=2)
        with pytest.raises(client.ServerError) as e:
            await c.request(m.Bot(race=snap.race, level="greedy"))
        assert e.value.code == "no-bots"


async def test_a_bot_leaves_a_lobby_where_only_bots_remain(serve_process) -> None:
    url, _proc = serve_process(*FAST_BOTS)
    async with client.connect(url, name="dee") as c, client.connect(url, name="eve") as watcher:
        snap = await c.create("fours-up", seats=3, time_limit_s=60)
        race = snap.race
        await ask_bot(c, race, "greedy")
        await until(lambda: seated_bot(c, race), what="the bot seated")
        await c.leave(race)

        # The bot, alone, gives its seat back: the race is empty (a join sees only itself).
        async def empty() -> bool:
            snap = await watcher.join(race)
            if len(snap.players) == 1:
                return True
            await watcher.leave(race)
            return False

        await until(empty, interval=0.2, what="the bot gone")
