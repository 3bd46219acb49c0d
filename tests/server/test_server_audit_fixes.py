"""What the wire carries, checked against docs/protocol.md where an outside audit found
the server saying otherwise:

- §1, §3 `end`, §5: `last_move_ms` is "int or nil", always present: nil, not absent, for
  a player who made no move (the `end` and `replay` rankings, the snapshot's ranking,
  daily leaderboard entries and `me`, `history` days);
- §3 snapshot: a player map's `berserk` is "optional, absent when false";
- §3 `bot`: `no-bots` when no worker has a free slot, counted: the slots the workers
  report, less the bots already asked for (server/storage/bots.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from waiting import until
from wsclient import player

from client.bots.service import BotService, Limits
from server.handlers.bots import WORKER_ALIVE_MS
from server.storage.bots import REQUESTS, TAKING, BotQueue, BotRequest, now_ms

# --- last_move_ms: nil, never absent ---------------------------------------------------------


def _no_move_rows(rows: list[dict[str, Any]], pid: str) -> dict[str, Any]:
    row = next(r for r in rows if r["player"] == pid)
    assert row["moves"] == 0
    return row


async def test_a_player_without_a_move_has_last_move_ms_nil_in_end_and_replay(server):
    ada = await player(server.ws_url, "ada")
    rid = (await ada.request("create", game="fours-up", seats=1, time_limit_s=60))["race"]
    assert (await ada.request("ready", race=rid))["t"] == "race"
    await ada.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    assert (await ada.request("finish", race=rid))["t"] == "ok"

    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    row = _no_move_rows(end["ranking"], ada.player)
    assert "last_move_ms" in row and row["last_move_ms"] is None, row

    replay = await ada.request("replay", race=rid)
    assert replay["t"] == "replay"
    row = _no_move_rows(replay["ranking"], ada.player)
    assert "last_move_ms" in row and row["last_move_ms"] is None, row

    state = await ada.request("resync", race=rid)
    row = _no_move_rows(state["race"]["ranking"], ada.player)
    assert "last_move_ms" in row and row["last_move_ms"] is None, row
    await ada.close()


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
async def test_a_daily_attempt_without_a_move_has_last_move_ms_nil_on_the_board_and_in_history(server):
    ada = await player(server.ws_url, "ada")
    rid = (await ada.request("daily_start", game="fours-up"))["race"]
    await ada.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    assert (await ada.request("finish", race=rid))["t"] == "ok"
    await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)

    async def board() -> dict[str, Any] | None:
        b = await ada.request("leaderboard", game="fours-up")
        return b if b["me"] is not None else None  # the entry is written just after the end

    b = await until(board, what="the attempt on the board")
    for row in (b["me"], _no_move_rows(b["top"], ada.player), _no_move_rows(b["around"], ada.player)):
        assert "last_move_ms" in row and row["last_move_ms"] is None, row
    h = await ada.request("history", game="fours-up")
    assert h["t"] == "history" and h["days"], h
    assert "last_move_ms" in h["days"][0] and h["days"][0]["last_move_ms"] is None, h["days"][0]
    await ada.close()


# --- berserk: absent when false -----------------------------------------------------------------


async def test_a_casual_snapshot_has_no_berserk_key(server):
    ada = await player(server.ws_url, "ada")
    bob = await player(server.ws_url, "bob")
    snap = await ada.request("create", game="fours-up", seats=2)
    assert snap["players"] and all("berserk" not in p for p in snap["players"]), snap["players"]
    joined = await bob.request("join", race=snap["race"])
    event = await ada.wait(lambda m: m.get("t") == "race" and len(m["players"]) == 2)
    for s in (joined, event):
        assert all("berserk" not in p for p in s["players"]), s["players"]
    await asyncio.gather(ada.close(), bob.close())


async def test_an_arena_berserk_player_map_says_true_and_the_others_say_nothing(make_server):
    app = await make_server(arena_create=1, arena_schedule="off", arena_tick_ms=200, countdown_ms=3000)
    ann = await player(app.ws_url, "ann")
    bob = await player(app.ws_url, "bob")
    made = await ann.request(
        "arena_create", arena="bz", game="racing-aces", duration_ms=60_000, time_limit_s=30
    )
    assert made["t"] == "arena", made
    for c in (ann, bob):
        assert (await c.request("arena_join", arena="bz"))["t"] == "arena"
    paired = await ann.wait(
        lambda m: m.get("t") == "race" and any(p["player"] == ann.player for p in m["players"])
    )
    assert all("berserk" not in p for p in paired["players"]), paired["players"]

    got = await ann.request("arena_berserk", arena="bz", race=paired["race"])
    assert got["t"] == "race", got
    seen = await bob.wait(
        lambda m: m.get("t") == "race" and any(p.get("berserk") for p in m.get("players", [])), timeout=30
    )
    for snap in (got, seen):
        maps = {p["player"]: p for p in snap["players"]}
        assert maps[ann.player]["berserk"] is True
        assert "berserk" not in maps[bob.player], maps[bob.player]
    await asyncio.gather(ann.close(), bob.close())


# --- bot: no-bots unless a worker has a free slot -------------------------------------------------


async def _redis(app) -> Any:
    return aioredis.Redis.from_url(app.settings.redis)


def _said(reply: dict[str, Any]) -> str:
    """`ok`, or the error's code."""
    return str(reply.get("code", reply["t"]))


async def _bot_identities(r: Any) -> int:
    return len([k async for k in r.scan_iter("pl:{bot-*")])


async def test_a_bot_is_promised_only_for_a_free_slot(server):
    """A worker reports one free slot: the first `bot` gets it, the second is `no-bots`
    (the first request already has the slot), and so is one once the worker took it;
    when the worker reports a free slot again, a bot can be had again."""
    r = await _redis(server)
    q = BotQueue(r)
    ada = await player(server.ws_url, "ada")
    races = [(await ada.request("create", game="fours-up", seats=2))["race"] for _ in range(3)]

    assert _said(await ada.request("bot", race=races[0])) == "no-bots"  # no worker
    await q.heartbeat("w1", await now_ms(r), 1)  # a worker with one free slot
    assert _said(await ada.request("bot", race=races[0])) == "ok"
    assert _said(await ada.request("bot", race=races[1])) == "no-bots"  # that slot is promised

    raw = await q.take(timeout_s=1)  # the worker takes the request: its slot is in use
    assert raw is not None and BotRequest.from_json(raw).race == races[0]
    assert _said(await ada.request("bot", race=races[1])) == "no-bots"
    await q.taken("w1", 0, await now_ms(r), raw)
    assert _said(await ada.request("bot", race=races[1])) == "no-bots"
    assert await r.llen(REQUESTS) == 0 and await r.llen(TAKING) == 0

    await q.heartbeat("w1", await now_ms(r), 1)  # its bot is done: a free slot again
    assert _said(await ada.request("bot", race=races[2])) == "ok"
    assert await _bot_identities(r) == 2  # a refused request leaves no bot identity behind
    await ada.close()
    await r.aclose()


async def test_concurrent_requests_never_promise_more_bots_than_free_slots(server):
    """Ten `bot` requests at once, on two connections, for three free slots: three are `ok`."""
    r = await _redis(server)
    q = BotQueue(r)
    ada = await player(server.ws_url, "ada")
    bob = await player(server.ws_url, "bob")
    races = [
        (await c.request("create", game="fours-up", seats=2))["race"] for c in (ada, bob) for _ in range(5)
    ]
    await q.heartbeat("w1", await now_ms(r), 2)
    await q.heartbeat("w2", await now_ms(r), 1)
    owners = [ada] * 5 + [bob] * 5
    replies = await asyncio.gather(*(c.request("bot", race=rid) for c, rid in zip(owners, races)))
    assert sorted(_said(rep) for rep in replies) == ["no-bots"] * 7 + ["ok"] * 3
    assert await r.llen(REQUESTS) == 3
    assert await _bot_identities(r) == 3
    await asyncio.gather(ada.close(), bob.close())
    await r.aclose()


async def test_the_free_slots_count_requests_being_taken_and_forget_dead_workers(server):
    r = await _redis(server)
    q = BotQueue(r)
    now = await now_ms(r)
    await q.heartbeat("w1", now, 2)
    assert await q.free_slots(now, WORKER_ALIVE_MS) == 2
    req = BotRequest(
        kind="race", level="greedy", token="t", player="bot-x", game="fours-up", expires=now + 60_000
    )
    assert await q.reserve([req, req], now, WORKER_ALIVE_MS)
    assert await q.free_slots(now, WORKER_ALIVE_MS) == 0
    raw = await q.take(timeout_s=1)
    assert raw is not None
    assert await q.free_slots(now, WORKER_ALIVE_MS) == 0  # popped, not yet counted: still waiting
    await q.taken("w1", 1, now, raw)
    assert await q.free_slots(now, WORKER_ALIVE_MS) == 0  # 1 free, 1 request waiting
    # A worker silent for longer than the window counts nothing.
    assert await q.free_slots(now + WORKER_ALIVE_MS + 1, WORKER_ALIVE_MS) == -1
    # A request a worker took and never counted (it died) holds no slot once expired.
    await r.delete(REQUESTS)
    await r.lpush(
        TAKING, BotRequest(kind="race", level="greedy", token="u", player="bot-y", game="g").to_json()
    )
    assert await q.free_slots(now, WORKER_ALIVE_MS) == 1
    await r.aclose()


async def test_a_real_worker_with_one_slot_plays_one_bot_and_says_no_to_a_second(server):
    """The worker process's loop (client/bots/service.py) in this process: one slot, one bot
    seated; while it plays, a second `bot` is `no-bots` at once (no bot would come)."""
    stop = asyncio.Event()
    worker = BotService(
        server.ws_url, server.settings.redis, Limits(max_bots=1, think_ms=20, move_ms=0, wait_s=60)
    )
    running = asyncio.create_task(worker.run(stop))
    ada = await player(server.ws_url, "ada")
    first = (await ada.request("create", game="fours-up", seats=2))["race"]
    second = (await ada.request("create", game="fours-up", seats=2))["race"]

    async def asked() -> bool:
        reply = await ada.request("bot", race=first)
        assert reply["t"] == "ok" or reply["code"] == "no-bots", reply
        return reply["t"] == "ok"

    await until(asked, interval=0.1, what="the worker's free slot")
    await ada.wait(
        lambda m: (
            m.get("t") == "race"
            and m["race"] == first
            and any(p["player"].startswith("bot-") for p in m["players"])
        )
    )
    assert _said(await ada.request("bot", race=second)) == "no-bots"
    stop.set()
    await asyncio.wait_for(running, 30)
    await ada.close()
