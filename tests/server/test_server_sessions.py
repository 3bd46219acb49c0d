"""Sessions: creation limited per address across processes; unused sessions expire within hours."""

from __future__ import annotations

import asyncio
import hashlib

import redis.asyncio as aioredis
from wsclient import Raw

FRESH = 6 * 3600
FULL = 7 * 86400


async def hello(url: str, name: str, token: str | None = None) -> dict:
    c = await Raw.open(url)
    fields: dict = {"v": 1, "name": name}
    if token:
        fields["token"] = token
    reply = await c.request("hello", **fields)
    await c.close()
    return reply


async def test_new_sessions_limited_per_address_across_processes(make_server):
    one = await make_server(new_sessions_per_min=5, limit_exempt="")
    two = await make_server(new_sessions_per_min=5, limit_exempt="")
    made = [await hello(one.ws_url if i % 2 else two.ws_url, f"p{i}") for i in range(5)]
    assert all(w["t"] == "welcome" for w in made), made
    for app in (one, two):
        refused = await hello(app.ws_url, "one-too-many")
        assert refused["t"] == "error" and refused["code"] == "rate-limited", refused
        assert 0 < refused["retry_ms"] <= 60_000
    # Resuming is not creating: a known token still gets in.
    again = await hello(one.ws_url, "p0", made[0]["token"])
    assert again["t"] == "welcome" and again["player"] == made[0]["player"]


async def test_exempt_addresses_are_not_counted(make_server):
    app = await make_server(new_sessions_per_min=2, limit_exempt="127.0.0.0/8")
    for i in range(5):
        assert (await hello(app.ws_url, f"p{i}"))["t"] == "welcome"


async def ttl(url: str, token: str) -> int:
    r = aioredis.Redis.from_url(url)
    try:
        return int(await r.ttl("sess:" + hashlib.sha256(token.encode()).hexdigest()))
    finally:
        await r.aclose()


async def test_unused_sessions_expire_within_hours_seated_ones_live_on(server):
    url = server.settings.redis
    idle = await Raw.open(server.ws_url)
    await idle.hello("idle")
    player = await Raw.open(server.ws_url)
    await player.hello("ada")
    assert 0 < await ttl(url, idle.token) <= FRESH
    assert 0 < await ttl(url, player.token) <= FRESH
    # A resumed hello before any seat keeps the short life.
    assert (await hello(server.ws_url, "idle", idle.token))["t"] == "welcome"
    assert 0 < await ttl(url, idle.token) <= FRESH
    # The first seat: the session lives SESSION_TTL, and so it stays at each hello.
    created = await player.request("create", game="fours-up", seats=2)
    assert created["t"] == "race", created
    assert await ttl(url, player.token) > FRESH
    assert (await hello(server.ws_url, "ada", player.token))["t"] == "welcome"
    assert FULL - 60 < await ttl(url, player.token) <= FULL
    assert 0 < await ttl(url, idle.token) <= FRESH


async def test_a_burst_of_resumes_all_get_in(make_server):
    """Many players reconnecting at once (a reconnect storm) are all welcomed back to their races."""
    # The hello timeout is the test settings' 2 s by default: 120 connections opened at
    # once on a loaded machine can take longer than that to say hello, which is not
    # what this test is about.
    app = await make_server(max_conn_per_addr=1000, hello_timeout_s=30.0)
    count = 120
    players = [await Raw.open(app.ws_url) for _ in range(count)]
    for i, p in enumerate(players):
        await p.hello(f"p{i}")
    races: dict[str, str] = {}
    for host, guest in zip(players[::2], players[1::2]):
        created = await host.request("create", game="fours-up", seats=2)
        assert (await guest.request("join", race=created["race"]))["t"] == "race"
        races[host.token] = races[guest.token] = created["race"]
    for p in players:
        await p.close()

    async def resume(token: str) -> dict:
        c = await Raw.open(app.ws_url)
        reply = await c.request("hello", v=1, token=token)
        assert (await c.request("ping"))["t"] == "pong"
        await c.close()
        return reply

    tokens = list(races)
    replies = await asyncio.gather(*(resume(t) for t in tokens))
    assert [r["t"] for r in replies] == ["welcome"] * count, [r for r in replies if r["t"] != "welcome"][:3]
    assert [r["races"] for r in replies] == [[races[t]] for t in tokens]
