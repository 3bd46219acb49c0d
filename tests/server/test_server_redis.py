"""Redis usage: one round trip per accepted move, the key layout, the scripts."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from must import must_be
from test_server_race import WIN, make_race, play
from wsclient import player

from server import storage as S
from server.core.moves import Applied
from server.storage.moves import decode_reply

# Commands the move script runs inside Redis (they show in commandstats too,
# but they are not round trips: they run within the one EVALSHA).
SCRIPT_INNER = {"hmget", "time", "rpush", "hset", "hincrby", "xadd", "publish", "hget"}


def _calls(info: dict) -> dict[str, int]:
    return {k.removeprefix("cmdstat_"): v["calls"] for k, v in info.items() if k.startswith("cmdstat_")}


async def test_one_round_trip_per_accepted_move(make_server):
    # Background loops off, so that only the moves talk to Redis during the burst.
    # (The rated matchmaker's look at its due races, a ZRANGEBYSCORE, once fell inside a slow burst.)
    app = await make_server(
        sweep_ms=600_000, spectator_flush_ms=600_000, arena_tick_ms=600_000, rated_form_ms=600_000
    )
    app.service.seed_factory = lambda: WIN["seed"]
    a = await player(app.ws_url, "ada")
    b = await player(app.ws_url, "bob")
    rid = await make_race(app, [a, b], WIN["game"])
    await play(a, rid, WIN["moves"][:1])  # warm: the move cache is filled at the start
    await b.wait(lambda m: m.get("t") == "progress" and m["n"] == 1)  # the warm move's fan-out is over
    r = aioredis.Redis.from_url(app.settings.redis)
    burst = WIN["moves"][1:101]
    before = _calls(await r.info("commandstats"))
    acks = await play(a, rid, burst, start_n=1)
    await b.wait(lambda m: m.get("t") == "progress" and m["n"] == 101)
    after = _calls(await r.info("commandstats"))
    await r.aclose()
    delta = {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) != before.get(k, 0)}
    delta.pop("info", None)
    n = len(burst)
    assert len(acks) == n
    assert delta.pop("evalsha") == n  # exactly one script call per move
    # Nothing else reached Redis from outside the scripts; the inner calls add up per move.
    assert set(delta) <= SCRIPT_INNER, delta
    assert delta["hmget"] == 2 * n and delta["time"] == n and delta["publish"] == n and delta["xadd"] == n
    assert delta["rpush"] == n
    await a.close()
    await b.close()


async def test_position_is_a_snapshot_and_the_log_replays_the_rest(server):
    """Moves store the position only every SNAPSHOT_EVERY moves; reloads, resyncs and boards
    rebuild the current game from that snapshot and the move log after it."""
    from protocol import rules

    server.service.seed_factory = lambda: WIN["seed"]
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], WIN["game"])
    k = S.positions.SNAPSHOT_EVERY
    done = 2 * k + 5
    await play(a, rid, WIN["moves"][:done])
    r = aioredis.Redis.from_url(server.settings.redis)
    h = await r.hgetall(S.player_key(rid, a.player))
    await r.aclose()
    assert int(h[b"n"]) == done and int(h[b"pn"]) == 2 * k
    assert h[b"pos"] == S.encode_position(rules.replay(WIN["game"], WIN["seed"], WIN["moves"][: 2 * k]))
    now = rules.replay(WIN["game"], WIN["seed"], WIN["moves"][:done])
    store = server.store
    load = await store.load_player(rid, a.player)
    assert load.game is not None and load.game.n == done and load.game.last == WIN["moves"][done - 1]
    assert load.game.game() == now and load.game.home == now.cards_home
    # the spectator boards' read: the moves after those the caller has, in log order
    assert (await store.logs_since(rid, [a.player], [done - 3], 100))[1] == [
        (done, WIN["moves"][done - 3 : done], "playing")
    ]
    assert (await store.logs_since(rid, [a.player], [0], 100))[1] == [(done, WIN["moves"][:done], "playing")]
    # a long log is read a part at a time
    assert (await store.logs_since(rid, [a.player], [2], 5))[1] == [(done, WIN["moves"][2:7], "playing")]
    # the process forgets its cached game: the next move reloads it from snapshot + log
    server.service.games.clear()
    ack = await a.request("move", race=rid, n=done, move=WIN["moves"][done])
    assert ack["t"] == "ack" and ack["n"] == done + 1
    state = await a.request("resync", race=rid)
    now.play(WIN["moves"][done])
    assert state["you"]["view"] == now.view_text()
    await a.close()


async def test_a_game_stored_before_snapshots_loads_as_stored(server):
    """A player hash written before snapshots (its `pos` kept at `n`, no `pn`) is read as it is:
    nothing replayed on top of it, so a race in progress survives the upgrade."""
    from protocol import rules

    server.service.seed_factory = lambda: WIN["seed"]
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], WIN["game"])
    done = 40
    await play(a, rid, WIN["moves"][:done])
    now = rules.replay(WIN["game"], WIN["seed"], WIN["moves"][:done])
    r = aioredis.Redis.from_url(server.settings.redis)
    await r.hset(S.player_key(rid, a.player), "pos", S.encode_position(now))  # the old format
    await r.hdel(S.player_key(rid, a.player), "pn")
    await r.aclose()
    load = await server.store.load_player(rid, a.player)
    assert load.game is not None and load.game.n == done and load.game.game() == now
    assert (await server.store.logs_since(rid, [a.player], [0], 100))[1] == [
        (done, WIN["moves"][:done], "playing")
    ]
    server.service.games.clear()
    ack = await a.request("move", race=rid, n=done, move=WIN["moves"][done])
    assert ack["t"] == "ack" and ack["n"] == done + 1
    # that move stored its position with its count: the game is in the new format from here on
    now.play(WIN["moves"][done])
    r = aioredis.Redis.from_url(server.settings.redis)
    h = await r.hgetall(S.player_key(rid, a.player))
    await r.aclose()
    assert int(h[b"pn"]) == done + 1 and h[b"pos"] == S.encode_position(now)
    await play(a, rid, WIN["moves"][done + 1 : done + 4], start_n=done + 1)
    now = rules.replay(WIN["game"], WIN["seed"], WIN["moves"][: done + 4])
    server.service.games.clear()
    load = await server.store.load_player(rid, a.player)
    assert load.game is not None and load.game.n == done + 4 and load.game.game() == now
    await a.close()


async def _commands_during(url: str, action: Callable[[], Awaitable[None]]) -> list[str]:
    """Every command Redis ran while `action` ran, as MONITOR shows them.

    Two ECHO markers bound the window, so the wait is on what Redis saw, not on a clock.
    """
    mark = f"window-{uuid.uuid4().hex}"
    r = aioredis.Redis.from_url(url)
    seen: list[str] = []
    try:
        async with r.monitor() as mon, asyncio.timeout(60):
            await r.echo(f"{mark}-open")
            while f"{mark}-open" not in (await mon.next_command())["command"]:
                pass
            await action()
            await r.echo(f"{mark}-shut")
            while f"{mark}-shut" not in (cmd := (await mon.next_command())["command"]):
                seen.append(cmd)
    finally:
        await r.aclose()
    return seen


async def test_illegal_moves_never_reach_redis(make_server):
    app = await make_server(sweep_ms=600_000, spectator_flush_ms=600_000)
    a = await player(app.ws_url, "ada")
    rid = await make_race(app, [a], "fours-up")
    await a.request("move", race=rid, n=0, move="draw")

    async def illegal_moves() -> None:
        for _ in range(20):
            e = await a.request("move", race=rid, n=1, move="t0>t0")
            assert e["code"] == "illegal-move"

    # Background loops (arena, ratings, counts) may talk to Redis meanwhile; nothing may name the race.
    commands = await _commands_during(app.settings.redis, illegal_moves)
    assert not [c for c in commands if rid in c]
    await a.close()


async def test_every_race_key_shares_one_hash_tag(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "racing-aces")
    await play(a, rid, ["draw"])
    await b.request("finish", race=rid)
    await a.request("finish", race=rid)
    await a.wait("end")
    r = aioredis.Redis.from_url(server.settings.redis)
    keys = sorted(must_be(k, bytes).decode() for k in await r.keys(f"*{rid}*"))
    await r.aclose()
    assert keys and all(k.startswith("{race:" + rid + "}") for k in keys), keys
    assert S.race_key(rid) in keys and S.stream_key(rid) in keys
    assert S.log_key(rid, a.player) in keys and S.player_key(rid, b.player) in keys
    await a.close()
    await b.close()


async def test_noscript_reload(server):
    """After SCRIPT FLUSH (e.g. a Redis restart) the scripts are reloaded transparently."""
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], "racing-aces")
    r = aioredis.Redis.from_url(server.settings.redis)
    await r.script_flush()
    await r.aclose()
    ack = await a.request("move", race=rid, n=0, move="draw")
    assert ack["t"] == "ack" and ack["n"] == 1
    ack = await a.request("move", race=rid, n=1, move="draw")
    assert ack["t"] == "ack" and ack["n"] == 2
    snap = await a.request("create", game="fours-up")  # commit script, via redis-py
    assert snap["t"] == "race"
    # ...and the load script in a pipeline (the race list's several races at once)
    r = aioredis.Redis.from_url(server.settings.redis)
    await r.script_flush()
    await r.aclose()
    loaded = await server.service.store.load_races([rid, snap["race"]])
    assert [race.race for race in loaded] == [rid, snap["race"]]
    await a.close()


def test_hand_packed_move_command_is_plain_resp():
    """The move pipe's hand-built RESP equals the generic packer's output."""
    from server.config import Settings
    from server.storage.resp import pack

    sent = []

    class FakePipe:
        def call_packed(self, packed, cb, key=None):
            sent.append(packed)

    moves = S.MovePipe(FakePipe(), Settings().stream_maxlen)
    pos = b"fours-up\0\x00\x02ab"
    moves.play("r" + "a" * 16, "p1", 12, "t2:3>t5", pos, 40, True, "w:7c t3:Kd", lambda r: None)
    rk = "{race:r" + "a" * 16 + "}"
    prog = (
        b"\x89\xa1t\xa8progress\xa4race\xb1r" + b"a" * 16 + b"\xa6player\xa2p1\xa1n\x0d\xa4home\x28"
        b"\xa6status\xa3won\xa3ver\xce"
    )
    expect = pack(
        (
            b"EVALSHA",
            S.MOVE.sha,
            b"4",
            rk,
            rk + ":p:p1",
            rk + ":log:p1",
            rk + ":ev",
            "m",
            12,
            "t2:3>t5",
            pos,
            40,
            b"1",
            "w:7c t3:Kd",
            "r" + "a" * 16,
            "p1",
            "race:r" + "a" * 16,
            1000,
            prog,
        )
    )
    assert sent == [expect]
    # what move.lua appends (ver uint32, total uint8, at uint64) makes a valid progress event
    from protocol import messages as m

    frame = (
        prog
        + (70000).to_bytes(4, "big")
        + b"\xa5total\xcc"
        + bytes([104])
        + b"\xa2at\xcf"
        + (1_771_234_567_890).to_bytes(8, "big")
    )
    ev = m.decode_server(frame)
    assert ev == m.Progress(
        race="r" + "a" * 16,
        ver=70000,
        player="p1",
        n=13,
        home=40,
        total=104,
        status="won",
        at=1_771_234_567_890,
    )
    # a move that leaves its player playing is answered with its frame alone
    reply = decode_reply(frame, 13)
    assert type(reply) is Applied
    assert (reply.n, reply.ver, reply.at, reply.live, reply.frame) == (
        13,
        70000,
        1_771_234_567_890,
        -1,
        frame,
    )
    # a large count and cards home take their wider forms
    sent.clear()
    moves.play("r" + "a" * 16, "p1", 300, "draw", pos, 130, False, "", lambda r: None)
    assert b"\xa1n\xcd\x01\x2d\xa4home\xcc\x82\xa6status\xa7playing\xa3ver\xce" in sent[0]


def test_compact_positions_round_trip():
    from protocol import rules

    for game in rules.GAMES:
        g = rules.deal(game, "abc")
        for mv in g.legal_moves()[:3]:
            h = g.copy()
            h.play(mv)
            back = S.decode_position(S.encode_position(h))
            assert back == h and back.to_text() == h.to_text() and back.cards_home == h.cards_home


def test_position_cache_equals_full_encoding():
    """PositionCache (re-encodes only the piles a move touched) == encode_position, move after move."""
    import random

    from protocol import rules

    moves = 0
    for game in rules.GAMES:
        for seed in range(25):
            g = rules.deal(game, f"{seed:032x}")
            pc = S.PositionCache(g)
            assert pc.encode() == S.encode_position(g)
            rng = random.Random(seed)
            for _ in range(250):
                legal = g.legal_moves()
                if not legal:
                    break
                mv = rng.choice(legal)
                g.apply(mv)
                assert pc.encode(mv) == S.encode_position(g), (game, seed, mv)
                moves += 1
            assert pc.encode(None) == S.encode_position(g)  # no move given: everything
    assert moves > 10_000
