"""Caps against one player (or a few guests) taking a shared resource from everybody:

- `analysis`: one analysis under way per player, a bounded queue of analyses per process,
  and a hint that never waits behind more than one player's analysis in the worker;
- `bot`: at most MAX_WAITING_BOTS_PER_PLAYER bots asked for and not yet in a started race,
  counted over every process in Redis.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis.asyncio as aioredis
from waiting import DEADLINE, until
from wsclient import Raw, player

from server.certify import service as certify_service
from server.certify import work
from server.certify.service import Busy, Certifier
from server.config import Settings
from server.core.record import COUNTDOWN, LOBBY, Player, Race
from server.handlers.bots import ASKED_GRACE_MS, MAX_WAITING_BOTS_PER_PLAYER, asked_key, waiting_bots
from server.storage.bots import BotQueue, now_ms

GAME = "fours-up"


def said(reply: dict[str, Any]) -> str:
    """`ok` (or the reply's type), or the error's code."""
    return str(reply.get("code", reply["t"]))


async def finished_solo_race(c: Raw) -> str:
    """A public one-seat race of `c`, started and finished at once: its id."""
    rid = (await c.request("create", game=GAME, seats=1))["race"]
    await c.request("ready", race=rid)
    await c.wait(lambda f: f.get("t") == "start" and f.get("race") == rid)
    assert said(await c.request("finish", race=rid)) == "ok"
    await c.wait(lambda f: f.get("t") == "end" and f.get("race") == rid)
    return rid


# --- analysis ------------------------------------------------------------------------------------


async def test_one_analysis_under_way_per_player_and_a_bounded_queue(make_server):
    """The one request worker is held by a long solve. A player's analysis of one race waits for
    it; the same player's analysis of another race is refused at once (`solver-busy`, nothing
    started), while another player may start that one. Past MAX_QUEUED_ANALYSES waiting beside
    the one computing, a new analysis is refused at once whoever asks; one under way is joined."""
    # The wait is long: a request that is not refused at once does not answer within the test.
    app = await make_server(solver_request_workers=1, certified_games="none", analysis_wait_s=DEADLINE * 4)
    certifier = app.certifier
    assert certifier is not None
    limit = certifier.analysis_slots + certify_service.MAX_QUEUED_ANALYSES
    ada = await player(app.ws_url, "ada")
    others = [await player(app.ws_url, f"p{i}") for i in range(limit + 1)]
    races = [await finished_solo_race(ada) for _ in range(limit + 1)]
    blocker = asyncio.ensure_future(certifier.ask(time.sleep, 600))  # ended with the server
    waiting: list[asyncio.Future[dict[str, Any]]] = []
    try:
        waiting.append(asyncio.ensure_future(ada.request("analysis", race=races[0], timeout=DEADLINE * 5)))
        await until(lambda: races[0] in certifier.running, what="ada's first analysis under way")

        t0 = time.monotonic()
        refused = await ada.request("analysis", race=races[1])
        assert said(refused) == "solver-busy" and refused["retry_ms"] == 2000, refused
        assert time.monotonic() - t0 < DEADLINE / 2
        assert races[1] not in certifier.running  # nothing started for it

        # Another player may start it; each further player one more, up to the bound.
        for c, rid in zip(others, races[1:limit], strict=False):
            waiting.append(asyncio.ensure_future(c.request("analysis", race=rid, timeout=DEADLINE * 5)))

            def started(rid: str = rid) -> bool:
                return rid in certifier.running

            await until(started, what="an analysis under way")
        assert len(certifier.running) == limit
        late = others[limit - 1]
        refused = await late.request("analysis", race=races[limit])
        assert said(refused) == "solver-busy" and refused["retry_ms"] == 2000, refused
        assert races[limit] not in certifier.running
        # An analysis already under way is joined, not refused (and starts nothing more): the
        # request reaches the certifier while its race runs, where the only way on is to wait.
        joined: list[str] = []
        ask = certifier.analysis

        async def spy(race: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
            if race in certifier.running:
                joined.append(race)
            return await ask(race, *args, **kwargs)

        certifier.analysis = spy  # type: ignore[method-assign]
        waiting.append(asyncio.ensure_future(late.request("analysis", race=races[0], timeout=DEADLINE * 5)))
        await until(lambda: joined == [races[0]], what="the analysis under way joined")
        assert len(certifier.running) == limit
        assert not any(f.done() for f in waiting)
    finally:
        for f in waiting:
            f.cancel()
        await asyncio.gather(ada.close(), *(c.close() for c in others))
        blocker.cancel()


@pytest.fixture
async def r(clean_redis):
    client = aioredis.Redis.from_url(clean_redis)
    yield client
    await client.aclose()


async def test_a_hint_waits_for_one_solver_run_of_an_analysis_at_most(r, monkeypatch):
    """One request worker (a thread stands in for the process: same FIFO queue), three
    analyses under way, the first of a race of two players. A hint asked meanwhile runs
    right after the job in hand: one solver run of an analysis, not the whole queue. The
    deal is solved once per race (the second player of A adds no run)."""
    c = Certifier(r, Settings(solver_request_workers=1, certify_workers=0, certified_games="none"))
    executor = ThreadPoolExecutor(1)
    c.request_executor = executor
    order: list[str] = []
    tickets = threading.Semaphore(0)  # one ticket lets one job of the worker finish

    def fake_solve(game: str, seed: str, moves: list[str], nodes: int) -> Any:
        order.append(f"{seed} after {len(moves)}")
        tickets.acquire()
        return "unknown", [], nodes, 0.0

    def fake_hint() -> str:
        order.append("hint")
        return "t1>f1"

    monkeypatch.setattr(work, "solve_after", fake_solve)
    first = asyncio.ensure_future(
        c.analysis("A", GAME, "sA", [("a1", "A1", []), ("a2", "A2", [])], asker="x")
    )
    analyses = [first]
    try:
        await until(lambda: order, what="the first analysis job in the worker")
        for rid, asker in (("B", "y"), ("C", "z")):
            analyses.append(
                asyncio.ensure_future(c.analysis(rid, GAME, f"s{rid}", [(rid, rid, [])], asker=asker))
            )

            def started(rid: str = rid) -> bool:
                return rid in c.running

            await until(started, what="an analysis under way")

        def queued() -> int:
            """Jobs waiting for the worker: submitted to it, or waiting for an analysis slot."""
            gate = getattr(c, "analysis_gate", None)
            return executor._work_queue.qsize() + len(getattr(gate, "_waiters", None) or ())

        await until(lambda: queued() == 2, what="B and C waiting for the worker")
        hint = asyncio.ensure_future(c.ask(fake_hint))
        while not hint.done():
            seen = len(order)
            tickets.release()
            await until(lambda: len(order) > seen or hint.done(), what="the next job")  # noqa: B023
        assert order[:2] == ["sA after 0", "hint"], order
        # y already has an analysis under way: another race is refused at once, nothing started.
        with pytest.raises(Busy):
            await asyncio.wait_for(c.analysis("D", GAME, "s", [("d1", "D1", [])], asker="y"), DEADLINE / 2)
        assert "D" not in c.running
        for _ in range(8):
            tickets.release()
        outs = await asyncio.wait_for(asyncio.gather(*analyses), DEADLINE)
        assert [[e["player"] for e in out] for out in outs] == [["a1", "a2"], ["B"], ["C"]]
        assert [e["text"] for e in outs[0]] == [
            "the solver could not tell within its search budget where the win was lost"
        ] * 2
        assert sorted(order) == ["hint", "sA after 0", "sB after 0", "sC after 0"], order
        assert not c.running and not c.started_by  # all done: y may ask again
        [d1] = await c.analysis("D", GAME, "sD", [("d1", "D1", [])], asker="y")
        assert (d1["player"], d1["name"], d1["verdict"]) == ("d1", "D1", "unknown")
    finally:
        for f in analyses:
            f.cancel()
        for _ in range(16):
            tickets.release()
        executor.shutdown(wait=True)


# --- bots ----------------------------------------------------------------------------------------


async def free_slots(r: Any, slots: int) -> None:
    """A worker reports `slots` free slots (now: a report counts for a few seconds)."""
    await BotQueue(r).heartbeat("w1", await now_ms(r), slots)


async def test_one_player_cannot_take_every_bot_slot(server):
    """A worker with plenty of free slots. One player gets MAX_WAITING_BOTS_PER_PLAYER bots
    in lobbies, then `no-bots` for more, lobby after lobby, and on every connection at once;
    another player still gets a bot. Once the lobby with those bots starts, they no longer
    count: the first player may ask again."""
    assert MAX_WAITING_BOTS_PER_PLAYER == 2  # the test asks for that many
    r = aioredis.Redis.from_url(server.settings.redis)
    eve = await player(server.ws_url, "eve")
    twin = await Raw.open(server.ws_url)
    bob = await player(server.ws_url, "bob")
    try:
        await twin.hello(token=eve.token)
        lobbies = [(await eve.request("create", game=GAME, seats=8, private=True))["race"] for _ in range(4)]
        await free_slots(r, 20)
        assert said(await eve.request("bot", race=lobbies[0])) == "ok"
        assert said(await eve.request("bot", race=lobbies[0])) == "ok"
        refused = await eve.request("bot", race=lobbies[1])
        assert said(refused) == "no-bots", refused
        # Many at once, on two connections: none more.
        replies = await asyncio.gather(
            *(c.request("bot", race=lobbies[k]) for c in (eve, twin) for k in (1, 2, 3))
        )
        assert {said(x) for x in replies} == {"no-bots"}, replies
        assert await r.zcard(asked_key(eve.player)) == 2  # the refused ones left nothing
        assert await r.llen("bots:requests") == 2  # nor a request

        bob_lobby = (await bob.request("create", game=GAME, seats=2, private=True))["race"]
        assert said(await bob.request("bot", race=bob_lobby)) == "ok"

        # eve starts the lobby of her two bots (not seated yet: no worker plays them here).
        await eve.request("ready", race=lobbies[0])
        assert said(await eve.request("start", race=lobbies[0])) == "race"
        await free_slots(r, 20)
        assert said(await eve.request("bot", race=lobbies[1])) == "ok"
        assert await r.zcard(asked_key(eve.player)) == 1  # the started race's are forgotten
    finally:
        await asyncio.gather(eve.close(), twin.close(), bob.close())
        await r.aclose()


def race(status: str, *players: str) -> Race:
    return Race(
        race="r", game=GAME, total=52, seats=8, time_limit_s=600, private=True, host=players[0],
        created=0, seed="s", commitment="c", status=status, players=[Player(p, p) for p in players],
    )  # fmt: skip


def test_which_bots_asked_for_still_count():
    now = 1_000_000
    old = now - ASKED_GRACE_MS - 1
    noted = [
        ("L1 bot-a", old),  # seated in its lobby: counts however long ago
        ("L1 bot-b", old),  # asked long ago and never seated (request dropped): forgotten
        ("L1 bot-c", now - 1000),  # asked lately, not seated yet: counts
        ("L1 ?n", now - 1000),  # being asked (another request at once): counts
        ("S bot-d", now - 1000),  # its race started: forgotten
        ("G bot-e", now - 1000),  # its race is gone: forgotten
        ("E bot-f", old),  # its race could not be read: counts
    ]
    loaded: dict[str, Any] = {
        "L1": race(LOBBY, "eve", "bot-a"),
        "S": race(COUNTDOWN, "eve", "bot-d"),
        "G": None,
        "E": ConnectionError("down"),
    }
    still, gone = waiting_bots(noted, loaded, now)
    assert still == ["L1 bot-a", "L1 bot-c", "L1 ?n", "E bot-f"]
    assert gone == ["L1 bot-b", "S bot-d", "G bot-e"]
