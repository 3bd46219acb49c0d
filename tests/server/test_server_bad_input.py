"""Bad input: each case gets its code (or close code), nothing changes, others keep being served."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from test_server_race import make_race
from waiting import DEADLINE, until
from wsclient import Raw, player

from server import storage as S


def reply_to(rid: int) -> Callable[[dict[str, Any]], bool]:
    """Matches the reply that carries `rid`."""
    return lambda m: m.get("rid") == rid


async def snapshot_state(app, rid: str, pids: list[str]) -> tuple:
    """Everything a bad request could have changed in a race."""
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        race = await r.hgetall(S.race_key(rid))
        players = [await r.hgetall(S.player_key(rid, p)) for p in pids]
        logs = [await r.lrange(S.log_key(rid, p), 0, -1) for p in pids]
        return race, players, logs, await r.xlen(S.stream_key(rid))
    finally:
        await r.aclose()


async def still_serves(url: str) -> None:
    """A fresh client can say hello and ping."""
    c = await player(url, "fresh")
    assert (await c.request("ping"))["t"] == "pong"
    await c.close()


async def test_frames_and_messages(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "racing-aces")
    await a.request("move", race=rid, n=0, move="draw")
    before = await snapshot_state(server, rid, [a.player, b.player])
    cases: list[tuple[dict[str, Any] | bytes | str, str | None, str | None]] = [
        (b"\xc1", "bad-frame", None),  # never valid MessagePack
        (b"\x92\x01\x02", "bad-frame", None),  # an array, not a map
        (msgpack.packb({"t": "ping"}) + b"\x00", "bad-frame", None),  # trailing bytes
        ("text frame", "bad-frame", None),
        ({"t": "move", "race": rid, "n": "one", "move": "draw"}, "bad-message", "n"),
        ({"t": "move", "race": rid, "n": -1, "move": "draw"}, "bad-message", "n"),
        ({"t": "move", "race": rid, "n": 1, "move": "x" * 40}, "bad-message", "move"),
        ({"t": "move", "race": rid, "n": 1}, "bad-message", "move"),
        ({"t": "move", "race": rid, "n": 1, "move": "draw", "extra": 1}, "bad-message", "extra"),
        ({"t": "create", "game": "racing-aces", "seats": 9}, "bad-message", "seats"),
        ({"t": "create", "game": "racing-aces", "time_limit_s": 5}, "bad-message", "time_limit_s"),
        ({"t": "teleport"}, "unknown-type", None),
        ({"t": 7}, "unknown-type", None),
        ({"rid": 3}, "bad-message", "t"),
        ({"t": "create", "game": "chess"}, "unknown-game", None),
        ({"t": "join", "race": "nope"}, "no-such-race", None),
        ({"t": "join", "race": "r" + "0" * 16}, "no-such-race", None),
        ({"t": "replay", "race": rid}, "race-not-over", None),
        ({"t": "spectate", "race": rid}, "is-player", None),
        ({"t": "join", "race": rid}, None, None),  # already seated: the snapshot, no change
        ({"t": "hello", "v": 1}, "bad-message", "t"),  # hello twice
    ]
    await a.request("ping")  # the pong comes after every frame sent to `a` before it
    a.unread.clear()  # lobby and start events
    for frame, code, field in cases:
        if isinstance(frame, dict):
            frame = {**frame, "rid": 99} if "rid" not in frame else frame
            await a.send(frame)
        else:
            await a.send(frame)
        reply = await a.wait(lambda m: m.get("t") == "error" or m.get("rid") == 99)
        if code is None:
            assert reply["t"] == "race", (frame, reply)
            continue
        assert reply["t"] == "error" and reply["code"] == code, (frame, reply)
        if field is not None:
            assert reply.get("field") == field, (frame, reply)
        if isinstance(frame, dict) and code in (
            "bad-message",
            "unknown-game",
            "no-such-race",
            "race-not-over",
        ):
            assert reply.get("rid") == frame.get("rid", 99), (frame, reply)
    assert await snapshot_state(server, rid, [a.player, b.player]) == before
    # the same connection still works, and so does everyone else
    assert (await a.request("move", race=rid, n=1, move="draw"))["t"] == "ack"
    assert (await b.request("move", race=rid, n=0, move="draw"))["t"] == "ack"
    await still_serves(server.ws_url)
    await a.close()
    await b.close()


async def test_moves_in_the_wrong_place(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    eve = await player(server.ws_url, "eve")
    # before the start: a lobby
    lobby = (await a.request("create", game="fours-up", seats=2))["race"]
    await b.request("join", race=lobby)
    before_lobby = await snapshot_state(server, lobby, [a.player, b.player])
    err = await a.request("move", race=lobby, n=0, move="draw")
    assert err["code"] == "race-not-running"
    assert (await a.request("finish", race=lobby))["code"] == "race-not-running"
    assert await snapshot_state(server, lobby, [a.player, b.player]) == before_lobby
    # a running race of b and eve's spectating
    c = await player(server.ws_url, "cyd")
    rid = await make_race(server, [b, c], "fours-up")
    assert (await eve.request("spectate", race=rid))["t"] == "race"
    before = await snapshot_state(server, rid, [b.player, c.player])
    # in another race (a sits in none of it)
    assert (await a.request("move", race=rid, n=0, move="draw"))["code"] == "not-in-race"
    # by a spectator
    assert (await eve.request("move", race=rid, n=0, move="draw"))["code"] == "not-in-race"
    assert (await eve.request("finish", race=rid))["code"] == "not-in-race"
    # unknown race
    assert (await b.request("move", race="r" + "1" * 16, n=0, move="draw"))["code"] == "no-such-race"
    assert (await b.request("move", race="bogus", n=0, move="draw"))["code"] == "no-such-race"
    # illegal moves: each with the engine's reason
    for mv, reason in [
        ("t0-f0", "bad-notation"),
        ("t9>f0", "no-such-pile"),
        ("w>f0", "not-available"),
        ("t0>s", "not-accepted"),
        ("t0>t0", "same-pile"),
    ]:
        e = await b.request("move", race=rid, n=0, move=mv)
        assert e["code"] == "illegal-move" and e["reason"] == reason, (mv, e)
    # stale / future n
    assert (await b.request("move", race=rid, n=5, move="draw"))["code"] == "out-of-sync"
    await b.wait("state")
    assert await snapshot_state(server, rid, [b.player, c.player]) == before
    # after the end
    await b.request("finish", race=rid)
    await c.request("finish", race=rid)
    await b.wait("end")
    assert (await b.request("move", race=rid, n=0, move="draw"))["code"] == "race-not-running"
    assert (await c.request("finish", race=rid))["code"] == "race-not-running"
    await still_serves(server.ws_url)
    for x in (a, b, c, eve):
        await x.close()


async def test_game_over_after_win_is_refused(server):
    from test_server_race import WIN, play

    server.service.seed_factory = lambda: WIN["seed"]
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], WIN["game"])
    await play(a, rid, WIN["moves"])
    n = len(WIN["moves"])
    e = await a.request("move", race=rid, n=n, move="f0>t0")
    assert e["code"] == "game-over"
    assert (await a.request("finish", race=rid))["code"] == "game-over"
    await a.close()
    await b.close()


async def test_hello_first_and_bad_token(server):
    c = await Raw.open(server.ws_url)
    assert (await c.request("ping"))["code"] == "hello-first"
    assert (await c.request("create", game="fours-up"))["code"] == "hello-first"
    assert (await c.request("hello", v=2))["code"] == "bad-version"
    assert (await c.request("hello", v=1, token="not-a-token"))["code"] == "bad-token"
    await c.send(b"\xc1")
    assert (await c.wait("error"))["code"] == "bad-frame"
    w = await c.request("hello", v=1, name="late")
    assert w["t"] == "welcome" and w["name"] == "late"
    assert set(w["limits"]) >= {
        "MAX_FRAME",
        "RATE",
        "BURST",
        "MAX_NAME",
        "MAX_SEATS",
        "MAX_RACES_PER_PLAYER",
        "OUTBOUND_QUEUE",
        "HELLO_TIMEOUT",
        "SESSION_TTL",
        "MAX_CONN_PER_ADDR",
        "COUNTDOWN",
        "SPECTATOR_DELAY",
        "SPECTATOR_FLUSH",
        "TIME_LIMIT_S",
    }
    await c.close()


async def test_oversized_frame_closes_1009(server):
    a = await player(server.ws_url, "ada")
    await a.send(msgpack.packb({"t": "ping", "pad": "x" * (server.settings.max_frame + 10)}))
    await asyncio.wait_for(a.reader, DEADLINE)
    assert a.closed == 1009
    await still_serves(server.ws_url)


async def test_hello_timeout_closes_1008(make_server):
    app = await make_server(hello_timeout_s=0.2)
    c = await Raw.open(app.ws_url)
    await asyncio.wait_for(c.reader, DEADLINE)
    assert c.closed == 1008
    await still_serves(app.ws_url)


async def test_rate_limit(make_server):
    # The slowest refill (1 credit a second): the counts below hold however long a stall lasts,
    # within bounds of the time that passed.
    app = await make_server(rate=1, burst=5, rate_close=20)
    t0 = time.monotonic()
    a = await player(app.ws_url, "ada")  # hello spent one credit
    for i in range(12):
        await a.send({"t": "ping", "rid": i})
    replies = [await a.wait(reply_to(i)) for i in range(12)]
    elapsed = time.monotonic() - t0
    # 12 pings, at most 5 credits plus one a second: some are limited unless this took 7 s.
    limited = [r for r in replies if r["t"] == "error"]
    assert limited and all(r["code"] == "rate-limited" and r["retry_ms"] > 0 for r in limited)
    # The burst's credits (4 or 5 after the hello), and those that came back meanwhile.
    pongs = sum(r["t"] == "pong" for r in replies)
    assert 4 <= pongs <= 5 + elapsed * 1, (pongs, elapsed)
    await asyncio.sleep(1.05)  # not a wait: a credit comes back 1 s after the last was spent
    assert (await a.request("ping"))["t"] == "pong"
    # abuse: far more than rate_close dropped messages in a row closes with 1008 (a credit
    # back meanwhile restarts the count: it would take one a second every 20 pings to escape)
    for _ in range(100):
        await a.send({"t": "ping"})
    await asyncio.wait_for(a.reader, DEADLINE)
    assert a.closed == 1008
    await still_serves(app.ws_url)


async def test_rate_close_counts_exactly_and_a_dropped_frame_keeps_its_rid(make_server):
    """RATE_CLOSE rate-limited messages in a row, then the close (docs/protocol.md §7); each
    gets its rid even when the frame is otherwise malformed (only the rid is read, §6)."""
    app = await make_server(rate=1, burst=2, rate_close=5)
    a = await player(app.ws_url, "ada")  # hello spent one credit
    kinds: list[dict[str, Any]] = [
        {"t": "ping", "zz": 1},  # an unknown field
        {"t": "nope"},  # an unknown type
        {},  # no type at all
        {"t": "ping"},
    ]
    for i in range(12):  # a credit that comes back meanwhile only restarts the count
        await a.send({**kinds[i % 4], "rid": 7000 + i})
    await asyncio.wait_for(a.reader, DEADLINE)
    assert a.closed == 1008
    got = [msgpack.unpackb(f) for f in a.frames[1:]]  # after the welcome
    run = 0
    while run < len(got) and got[-1 - run].get("code") == "rate-limited":
        run += 1
    assert run == 5, got
    rids = [x.get("rid") for x in got[-5:]]
    assert rids == list(range(rids[0], rids[0] + 5)) and rids[0] is not None, got
    await still_serves(app.ws_url)


async def test_connections_per_address(make_server):
    app = await make_server(max_conn_per_addr=2)
    a = await player(app.ws_url, "a")
    b = await player(app.ws_url, "b")
    c = await Raw.open(app.ws_url)
    await asyncio.wait_for(c.reader, DEADLINE)
    assert c.closed == 1008
    await a.close()

    async def admitted() -> Raw | None:
        """A new connection that gets its welcome, or None while the server still counts `a`."""
        d = await Raw.open(app.ws_url)
        try:
            await d.hello("d")
        except ConnectionError:
            return None
        return d

    d = await until(admitted, what="a slot free again once `a` has gone")
    await b.close()
    await d.close()


async def test_name_too_long_for_this_server(make_server):
    app = await make_server(max_name=4)
    c = await Raw.open(app.ws_url)
    e = await c.request("hello", v=1, name="abcdefg")
    assert e["code"] == "bad-message" and e["field"] == "name"
    await c.close()


async def test_too_many_races(make_server):
    app = await make_server(max_races_per_player=2)
    a = await player(app.ws_url, "ada")
    for _ in range(2):
        assert (await a.request("create", game="fours-up"))["t"] == "race"
    assert (await a.request("create", game="fours-up"))["code"] == "too-many-races"
    assert (await a.request("quick", game="fours-up"))["code"] == "too-many-races"
    await a.close()


@pytest.mark.parametrize("limit", [4])
async def test_slow_reader_is_closed(make_server, limit):
    """A client that stops reading is closed once OUTBOUND_QUEUE frames wait for it."""
    app = await make_server(outbound_queue=limit)
    a = await player(app.ws_url, "ada")
    conn = next(iter(app.gateway.conns))
    conn.high = 0  # pretend the socket buffer is full: every frame must queue
    ws_writer_blocked = asyncio.Event()

    async def stuck_send(frame):  # the peer never drains
        ws_writer_blocked.set()
        await asyncio.Event().wait()

    conn.ws.send = stuck_send
    for _ in range(limit + 2):
        conn.send(b"\x81\xa1t\xa4pong")
    assert conn.closed
    assert app.metrics.closes[1008] >= 1
    await a.close()


async def test_create_default_clock_is_the_servers_time_limit(make_server):
    """docs/protocol.md §3/§7: `create` without `time_limit_s` gets TIME_LIMIT_S (configurable)."""
    app = await make_server(time_limit_s=900)
    a = await player(app.ws_url, "ada")
    assert (await a.request("create", game="fours-up"))["time_limit_s"] == 900
    assert (await a.request("create", game="fours-up", time_limit_s=600))["time_limit_s"] == 600
    await a.close()
