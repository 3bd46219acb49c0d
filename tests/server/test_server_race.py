"""Whole races over real sockets and a real Redis: a win, a time limit, retries, no leaks."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis_replies import raw, raw_hash
from wsclient import Raw, player

from protocol import rules
from server import storage as S

WIN = json.loads((Path(__file__).parent / "data" / "win_racing_aces.json").read_text())


async def make_race(
    app, players: list[Raw], game: str, seats: int | None = None, time_limit_s: int | None = None
) -> str:
    """Create a race, seat and ready everyone, wait for every start; returns the race id."""
    host = players[0]
    snap = await host.request("create", game=game, seats=seats or len(players), time_limit_s=60)
    rid = snap["race"]
    if time_limit_s is not None:
        # Test hook: the protocol's minimum clock is 30 s; shorten it in the lobby record
        # so that the countdown computes the deadline from it like for any race.
        r = aioredis.Redis.from_url(app.settings.redis)
        await r.hset(S.race_key(rid), "time_limit_s", time_limit_s)
        await r.aclose()
    for p in players[1:]:
        assert (await p.request("join", race=rid))["t"] == "race"
    for p in players:
        assert (await p.request("ready", race=rid))["t"] == "race"
    for p in players:
        await p.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    return rid


async def end_clock_now(redis_url: str, rid: str) -> int:
    """Test hook: the race's time is up now (by Redis' clock). Its stored deadline and its
    timer move to now, so that the clock (any process's sweeper) ends it like any race
    whose time ran out; the moves before were made on a long clock. Returns the deadline (ms)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        sec, usec = await r.time()
        now = sec * 1000 + usec // 1000
        await r.hset(S.race_key(rid), "deadline", now)
        await r.zadd(S.TIMERS, {rid: now})
    finally:
        await r.aclose()
    return now


def reply_to(rid: int) -> Callable[[dict[str, Any]], bool]:
    """Whether a frame is the reply to request `rid`."""
    return lambda frame: frame.get("rid") == rid


async def play(c: Raw, rid: str, moves: list[str], start_n: int = 0) -> list[dict[str, Any]]:
    """Send moves pipelined (without waiting), then collect their acks in order."""
    rids = []
    for i, mv in enumerate(moves):
        rid_ = next(c.rids)
        rids.append(rid_)
        await c.send({"t": "move", "rid": rid_, "race": rid, "n": start_n + i, "move": mv})
    acks = [await c.wait(reply_to(r)) for r in rids]
    for a in acks:
        assert a["t"] == "ack", a
    return acks


async def stored_player(app, rid: str, pid: str) -> dict[bytes, bytes]:
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        return raw_hash(await r.hgetall(S.player_key(rid, pid)))
    finally:
        await r.aclose()


async def stored_position(app, rid: str, pid: str) -> bytes:
    """The player's current stored position: the snapshot, then the log entries after it."""
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        h = await r.hgetall(S.player_key(rid, pid))
        since = await r.lrange(S.log_key(rid, pid), int(h[b"pn"]), -1)
    finally:
        await r.aclose()
    return S.encode_position(S.replay(raw(h[b"pos"]), [raw(entry) for entry in since]))


async def test_full_race_to_a_win(server):
    server.service.seed_factory = lambda: WIN["seed"]
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], WIN["game"])
    # bob makes a few moves, then declares his game finished
    b_moves = WIN["moves"][:5]
    await play(b, rid, b_moves)
    ok = await b.request("finish", race=rid)
    assert ok["t"] == "ok" and ok["ver"] > 0
    acks = await play(a, rid, WIN["moves"])
    assert acks[-1]["won"] and acks[-1]["status"] == "won" and acks[-1]["home"] == 156
    assert [x["n"] for x in acks] == list(range(1, len(WIN["moves"]) + 1))
    # a won move ends a's game; the race ends since everyone is done
    end = await a.wait("end")
    end_b = await b.wait("end")
    assert end == end_b
    assert end["seed"] == WIN["seed"]
    start = next(m for m in map(msgpack.unpackb, a.frames) if m["t"] == "start")
    assert rules.seed_commitment(end["seed"]) == start["commitment"]
    r1, r2 = end["ranking"]
    assert (r1["rank"], r1["player"], r1["status"], r1["won"], r1["moves"]) == (
        1,
        a.player,
        "won",
        True,
        len(WIN["moves"]),
    )
    assert (r2["rank"], r2["player"], r2["status"], r2["won"], r2["moves"]) == (
        2,
        b.player,
        "finished",
        False,
        5,
    )
    assert r1["home"] == 156 and r1["time_ms"] > 0
    assert r2["home"] == rules.replay(WIN["game"], WIN["seed"], b_moves).cards_home
    # replay: re-deal the seed and re-play each log: the same final positions as stored
    rep = await a.request("replay", race=rid)
    assert rep["t"] == "replay" and rep["seed"] == WIN["seed"] and rep["ranking"] == end["ranking"]
    assert (rep["rules_version"], rep["deal_version"]) == (rules.RULES_VERSION, rules.DEAL_VERSION)
    for p in rep["players"]:
        final = rules.replay(rep["game"], rep["seed"], [mv for mv, _at in p["moves"]])
        assert final.to_text() == S.position_text(await stored_position(server, rid, p["player"]))
        ranked = next(e for e in rep["ranking"] if e["player"] == p["player"])
        assert final.cards_home == ranked["home"]
    # the finished race: a snapshot shows the seed, a move is refused
    late = await a.request("move", race=rid, n=len(WIN["moves"]), move="draw")
    assert late["code"] == "race-not-running"
    state = await b.request("resync", race=rid)
    assert state["race"]["status"] == "finished" and state["race"]["seed"] == WIN["seed"]
    await a.close()
    await b.close()


async def test_time_limit_ends_and_ranks_by_cards_home(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    c = await player(server.ws_url, "cyd")
    server.service.seed_factory = lambda: WIN["seed"]
    # The moves are made on a long clock (no stall can make one late); then the time is up.
    rid = await make_race(server, [a, b, c], WIN["game"], time_limit_s=600)
    # WIN["moves"][:3] puts 3 cards home, [:2] two; cyd and bob tie on cards home but
    # bob reached his count first -> bob ahead of cyd.
    await play(a, rid, WIN["moves"][:3])
    await play(b, rid, WIN["moves"][:2])  # bob's acks are in: his count is stored (by Redis' clock)
    await asyncio.sleep(0.05)  # not a wait: cyd's moves start 50 ms (many ms ticks) after bob's are stored
    await play(c, rid, WIN["moves"][:2])
    await end_clock_now(server.settings.redis, rid)
    end = await a.wait("end")
    ranking = end["ranking"]
    assert [e["player"] for e in ranking] == [a.player, b.player, c.player]
    assert [e["rank"] for e in ranking] == [1, 2, 3]
    assert [e["home"] for e in ranking] == [3, 2, 2]
    assert all(e["status"] == "timeout" and e["time_ms"] is None and not e["won"] for e in ranking)
    assert ranking[1]["home_at_ms"] < ranking[2]["home_at_ms"]
    # every member saw each timeout as a progress event before the end
    timeouts = [
        m for m in map(msgpack.unpackb, b.frames) if m["t"] == "progress" and m["status"] == "timeout"
    ]
    assert {m["player"] for m in timeouts} >= {a.player, c.player}
    # a timeout has no ack: each stopped player gets its own progress too, so that its
    # sequence of race versions has no hole before the end (docs/protocol.md §1 "Versions")
    for x in (a, b, c):
        own = [
            m
            for m in map(msgpack.unpackb, x.frames)
            if m["t"] == "progress" and m["status"] == "timeout" and m["player"] == x.player
        ]
        assert len(own) == 1
        seen = sorted(
            {
                m["ver"]
                for m in map(msgpack.unpackb, x.frames)
                if m["t"] in ("race", "start", "progress", "end", "ack") and "ver" in m
            }
        )
        assert seen == list(range(seen[0], seen[-1] + 1)), seen
    late = await c.request("move", race=rid, n=2, move="draw")
    assert late["code"] == "race-not-running"
    for x in (a, b, c):
        await x.close()


async def test_retried_move_is_applied_once(server):
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], "racing-aces")
    first = await a.request("move", race=rid, n=0, move="draw")
    again = await a.request("move", race=rid, n=0, move="draw")
    assert first["n"] == again["n"] == 1
    assert again.get("dup") is True and again["revealed"] == first["revealed"]
    assert again["at"] == first["at"]
    # a different move with the stale n is out of sync: error with the stored n, then state
    stale = await a.request("move", race=rid, n=0, move="t0>f0")
    assert stale["code"] == "out-of-sync" and stale["n"] == 1
    state = await a.wait("state")
    assert state["you"]["n"] == 1
    # after a reconnect (cold cache) the retry is still recognised
    token = a.token
    await a.close()
    a2 = await Raw.open(server.ws_url)
    await a2.hello(token=token)
    dup = await a2.request("move", race=rid, n=0, move="draw")
    assert dup["t"] == "ack" and dup.get("dup") is True and dup["n"] == 1
    stored = await stored_player(server, rid, a2.player)
    assert stored[b"n"] == b"1"
    r = aioredis.Redis.from_url(server.settings.redis)
    assert await r.llen(S.log_key(rid, a2.player)) == 1
    await r.aclose()
    await a2.close()


# --- no leaks ---------------------------------------------------------------------------------


def _walk_strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk_strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk_strings(v)


def _assert_only_views(msgs: list[dict], game: str) -> None:
    """Any board-like string is a view (stock as a count, no face-down card shown)."""
    for msg in msgs:
        for s in _walk_strings(msg):
            if s.startswith(game + " "):
                assert " s:#" in s and "~" not in s, s
                if msg["t"] == "boards":  # a rival's unseen cards are ?? anywhere in a pile
                    assert MASKED_VIEW.fullmatch(s), s
                    continue
                v = rules.view_from_text(s)  # raises on a position text (stock cards listed)
                assert v.game_id == game


#: A spectator's board: a view text whose piles may hold ?? at any place.
MASKED_VIEW = re.compile(r"[a-z-]+( s:#\d+| [a-z]+\d*:(\?\?|[A2-9TJQK][cdhs])*)+")


def masked_of(masked: str, views: set[str]) -> bool:
    """Whether `masked` is one of `views` with some of its cards shown as ?? and some piles
    but the waste cut short (spectators.py)."""
    card = r"(?:\?\?|[A2-9TJQK][cdhs])"
    parts = []
    for token in masked.split(" "):
        part = re.escape(token).replace(re.escape("??"), card)
        parts.append(part if token.startswith(("s:", "w:")) or ":" not in token else part + card + "*")
    pattern = re.compile(" ".join(parts))
    return any(pattern.fullmatch(view) for view in views)


async def test_no_card_leaks(server):
    """Every frame each recipient got during a whole race holds only what it may see."""
    server.service.seed_factory = lambda: WIN["seed"]
    game, seed = WIN["game"], WIN["seed"]
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    watcher = await player(server.ws_url, "eve")
    snap = await a.request("create", game=game, seats=2, time_limit_s=60)
    rid = snap["race"]
    await b.request("join", race=rid)
    spec = await watcher.request("spectate", race=rid)
    assert spec["t"] == "race" and spec["seed"] is None
    await a.request("ready", race=rid)
    await b.request("ready", race=rid)
    await a.wait("start")
    await b.wait("start")
    b_moves = ["draw", "draw", "draw"]
    half = len(WIN["moves"]) // 2
    await play(a, rid, WIN["moves"][:half], 0)
    await play(b, rid, b_moves)
    await play(a, rid, WIN["moves"][half : half + 10], half)
    await a.request("move", race=rid, n=half + 10, move=WIN["moves"][half + 10], view=True)
    # the spectator's delayed boards catch up with a's latest move (so the check below covers them)
    await watcher.wait(
        lambda m: (
            m.get("t") == "boards"
            and any(x["player"] == a.player and x["n"] == half + 11 for x in m["boards"])
        )
    )
    await b.request("resync", race=rid, since=0)
    await b.request("finish", race=rid)
    await play(a, rid, WIN["moves"][half + 11 :], half + 11)
    for c in (a, b, watcher):
        await c.wait("end")
        await c.request("ping")  # the pong comes after every frame sent to c before it
    moves = {a.player: WIN["moves"], b.player: b_moves}

    def own_views(pid: str) -> set[str]:
        g = rules.deal(game, seed)
        views = {g.view_text()}
        for mv in moves[pid]:
            g.play(mv)
            views.add(g.view_text())
        return views

    for c in (a, b, watcher):
        msgs = [msgpack.unpackb(f) for f in c.frames]
        end_at = next(i for i, m in enumerate(msgs) if m["t"] == "end")
        for f in c.frames[:end_at]:
            assert seed.encode() not in f, "the seed before the end"
        _assert_only_views(msgs, game)
        for msg in msgs:
            assert msg["t"] != "replay"
            if c is watcher:
                # spectators: public events, and delayed boards of face-up cards only (and the pong
                # of the test's own ping)
                assert msg["t"] in ("welcome", "race", "progress", "boards", "end", "pong"), msg["t"]
                if msg["t"] == "boards":
                    for board in msg["boards"]:
                        assert masked_of(board["view"], own_views(board["player"])), board
                continue
            # players: never a board of anyone; card-bearing fields are about their own game only
            assert msg["t"] != "boards"
            for key in ("view",):
                if key in msg:
                    assert msg[key] in own_views(c.player), (msg["t"], msg[key])
            if msg["t"] == "state" and msg.get("you"):
                assert msg["you"]["view"] in own_views(c.player)
            if msg["t"] == "progress":
                assert msg["player"] != c.player
                assert set(msg) == {"t", "race", "ver", "player", "n", "home", "total", "status", "at"}
        # acks reveal exactly what the player's own move revealed
        g = rules.deal(game, seed)
        acks = [m for m in msgs if m["t"] == "ack"]
        for ack, mv in zip(acks, moves.get(c.player, [])):
            res = g.apply(mv)
            assert [tuple(x) for x in ack["revealed"]] == list(res.revealed)
    boards = [m for m in map(msgpack.unpackb, watcher.frames) if m["t"] == "boards"]
    assert boards, "the spectator got no boards"
    for c in (a, b, watcher):
        await c.close()
