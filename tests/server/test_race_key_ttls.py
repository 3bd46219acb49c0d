"""Every key of a running race has a TTL, its move logs included (docs/operations.md "Redis
keys"): were every process to die for good mid-race, nothing of it stays in Redis forever.

The start commit gives the race's keys its TTL (its deadline plus a day), but a move log
does not exist then: a player's first move creates it (move.lua). That move's command is
followed, in the same write, by one that gives the new log the race's TTL (moves.py): the
move script itself, run on every move, is unchanged. The end commit's TTL still applies to
every key."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from redis_replies import text
from test_server_race import make_race, play
from waiting import until
from wsclient import player

from server import storage as S

GAME = "racing-aces"
FINISHED_TTL_S = 7200


async def race_ttls(redis_url: str, rid: str) -> dict[str, int]:
    """Each key of the race, with its PTTL (ms; -1: none)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        names = [text(k) for k in await r.keys(f"{{race:{rid}}}*")]
        return {k: await r.pttl(k) for k in names}
    finally:
        await r.aclose()


async def every_key_expires(redis_url: str, rid: str, logs: int) -> bool:
    ttls = await race_ttls(redis_url, rid)
    return sum(":log:" in k for k in ttls) == logs and all(t > 0 for t in ttls.values())


async def test_a_running_race_s_move_logs_expire_with_it(make_server, clean_redis):
    app = await make_server(finished_ttl_s=FINISHED_TTL_S)
    a, b = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    rid = await make_race(app, [a, b], GAME)
    assert await every_key_expires(clean_redis, rid, logs=0)  # the start commit's TTL
    await play(a, rid, ["draw", "draw"])
    await until(lambda: every_key_expires(clean_redis, rid, logs=1), what="ada's log expires")
    # A log created by a move reloaded after Redis lost its scripts gets its TTL all the same.
    r = aioredis.Redis.from_url(clean_redis)
    await r.script_flush()
    await r.aclose()
    await play(b, rid, ["draw"])
    await until(lambda: every_key_expires(clean_redis, rid, logs=2), what="bob's log expires")
    ttls = await race_ttls(clean_redis, rid)
    race_ttl = ttls[S.race_key(rid)]
    # The race's own TTL: its deadline (60 s away at most) plus a day.
    assert 86_400_000 < race_ttl <= 86_460_000
    # Each log's: the race's (read a few ms apart, in any order).
    assert all(abs(race_ttl - ttls[S.log_key(rid, p)]) < 5000 for p in (a.player, b.player)), ttls
    # The end commit's TTL still applies to every key.
    for c in (a, b):
        assert (await c.request("finish", race=rid))["t"] in ("ack", "ok")
    await a.wait("end")
    ttls = await race_ttls(clean_redis, rid)
    assert all(FINISHED_TTL_S * 1000 - 5000 < t <= FINISHED_TTL_S * 1000 for t in ttls.values()), ttls
    await asyncio.gather(a.close(), b.close())
