"""Limits per player and per address across connections and processes (real server processes).

A player's rate credits are shared by its connections; its connections and
an address's are counted over every process in Redis; and each connection of
a player receives its races' events, also one opened before the seat was
taken on another connection (of another process).
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import time

import msgpack
from waiting import DEADLINE
from websockets.exceptions import ConnectionClosed
from wsclient import Raw, player

from server.storage.keys import profile_key, session_key


async def closed_code(c: Raw) -> int | None:
    await asyncio.wait_for(asyncio.gather(c.reader, return_exceptions=True), DEADLINE)
    return c.closed


async def test_connections_per_address_counted_over_processes(serve_process):
    a, _ = serve_process("--max-conn-per-addr", "3")
    b, _ = serve_process("--max-conn-per-addr", "3")
    first = [await player(a, "a1"), await player(a, "a2"), await player(b, "b1")]
    extra = await Raw.open(b)
    assert await closed_code(extra) == 1008  # the 4th from this address, on the other process
    await first[0].close()
    # One went away on process a: process b admits one again (the count is shared).
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while True:
        again = await Raw.open(b)
        try:
            await again.hello("b2")
            break
        except (ConnectionError, ConnectionClosed):  # refused: a's count has not dropped yet
            assert asyncio.get_running_loop().time() < deadline, "never admitted again"
            await asyncio.sleep(0.05)  # poll interval between attempts
    assert (await again.request("ping"))["t"] == "pong"


async def test_connections_per_player_counted_over_processes(serve_process):
    a, _ = serve_process("--max-conn-per-player", "2")
    b, _ = serve_process("--max-conn-per-player", "2")
    one = await player(a, "ada")
    two = await Raw.open(b)
    await two.hello("ada", one.token)
    three = await Raw.open(a)
    three_rid = next(three.rids)
    await three.send({"t": "hello", "rid": three_rid, "v": 1, "token": one.token})
    assert await closed_code(three) == 1008
    assert (await two.request("ping"))["t"] == "pong"


async def test_rate_credits_are_shared_by_a_players_connections(make_server):
    app = await make_server(rate=1, burst=5, rate_close=1000)
    t0 = time.monotonic()
    first = await player(app.ws_url, "ada")
    second = await Raw.open(app.ws_url)
    await second.hello("ada", first.token)  # the hello spends the connection's own credit
    replies = [await first.request("ping") for _ in range(4)]
    replies += [await second.request("ping") for _ in range(8)]
    elapsed = time.monotonic() - t0
    kinds = [r["t"] if r["t"] == "pong" else r["code"] for r in replies]
    # 5 credits for the player, whichever connection spends them (not 5 each), plus the one
    # a second (rate) that came back meanwhile: counted against the time taken, so that a
    # stall only loosens the bound. Credits of its own would give `second` 5 more pongs.
    assert kinds[:4] == ["pong"] * 4, kinds
    assert kinds.count("pong") <= 5 + elapsed * 1, (kinds, elapsed)
    assert "rate-limited" in kinds[4:], kinds  # 12 pings: limited unless this took 7 s
    other = await player(app.ws_url, "bob")  # another player has credits of their own
    assert (await other.request("ping"))["t"] == "pong"


async def test_a_players_earlier_connection_gets_the_races_events(serve_process):
    a, _ = serve_process()
    b, _ = serve_process()
    early = await player(a, "ada")  # open before the seat is taken, on process a
    seat = await Raw.open(b)
    await seat.hello("ada", early.token)  # the same player on process b takes the seat
    created = await seat.request("create", game="fours-up", seats=2)
    rid = created["race"]
    rival = await player(b, "bob")
    assert (await rival.request("join", race=rid))["t"] == "race"
    # The early connection learns of the race and receives its events from then on.
    joined = await early.wait(
        lambda m: m.get("t") == "race" and m.get("race") == rid and len(m["players"]) == 2
    )
    assert "rid" not in joined  # an event, not a reply
    assert (await rival.request("ready", race=rid))["t"] == "race"
    assert (await early.request("ready", race=rid))["t"] == "race"  # it may act in the race too
    start = await early.wait(lambda m: m.get("t") == "start" and m.get("race") == rid)
    await seat.wait(lambda m: m.get("t") == "start" and m.get("race") == rid)
    assert start["view"]


async def test_a_stopped_process_leaves_no_connection_counts(serve_process):
    """A graceful stop writes its last counts: the other process admits the address's full allowance at once."""
    a, proc_a = serve_process("--max-conn-per-addr", "2")
    b, _ = serve_process("--max-conn-per-addr", "2")
    held = [await player(a, "a1"), await player(a, "a2")]
    refused = await Raw.open(b)
    assert await closed_code(refused) == 1008  # a holds the allowance
    proc_a.terminate()
    await asyncio.wait_for(asyncio.to_thread(proc_a.wait), DEADLINE)
    for c in held:
        await asyncio.wait_for(asyncio.gather(c.reader, return_exceptions=True), DEADLINE)
    # a's counts are gone from Redis, not merely expiring (30 s): b admits two at once.
    again = [await player(b, "b1"), await player(b, "b2")]
    assert [(await c.request("ping"))["t"] for c in again] == ["pong", "pong"]


async def test_a_hello_refused_for_too_many_connections_changes_nothing(make_server):
    """The refused hello's new name is not stored: the player keeps its name."""
    app = await make_server(max_conn_per_player=1)
    one = await player(app.ws_url, "ada")
    extra = await Raw.open(app.ws_url)
    await extra.send({"t": "hello", "rid": next(extra.rids), "v": 1, "token": one.token, "name": "RENAMED"})
    assert await closed_code(extra) == 1008
    # The player's own connection still plays as "ada".
    created = await one.request("create", game="fours-up", seats=2)
    assert [p["name"] for p in created["players"]] == ["ada"], created
    await one.close()
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while True:  # admitted once the first connection's close is counted
        again = await Raw.open(app.ws_url)
        try:
            welcome = await again.hello(token=one.token)
            break
        except (ConnectionError, ConnectionClosed, AssertionError):
            assert asyncio.get_running_loop().time() < deadline, "never admitted again"
            await asyncio.sleep(0.05)  # poll interval between attempts
    assert welcome["name"] == "ada"


def _frame(opcode: int, payload: bytes) -> bytes:
    """One masked client WebSocket frame (payload under 64 KiB)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def test_hellos_queued_behind_a_refused_one_are_not_counted(make_server):
    """Hellos and a close frame all on the wire at once, the first hello refused (too many
    connections): the hellos behind it are dropped, not admitted again, so the player's
    count goes back down once the connection is gone (it stayed up for good)."""
    from waiting import until

    app = await make_server(max_conn_per_player=1)
    one = await player(app.ws_url, "ada")
    host, port = app.ws_url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert b" 101 " in (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")[0]
    hellos = (msgpack.packb({"t": "hello", "rid": rid, "v": 1, "token": one.token}) for rid in (1, 2, 3))
    writer.write(b"".join(_frame(2, h) for h in hellos) + _frame(8, struct.pack(">H", 1000)))
    await writer.drain()
    conns = app.gateway.admission.player_conns
    await until(lambda: (conns.get(one.player) or 0) >= 2, what="the first hello counted")
    writer.transport.abort()
    await until(lambda: conns.get(one.player) == 1, what="the count back to ada's own connection")
    await one.close()
    again = await Raw.open(app.ws_url)
    assert (await again.hello(token=one.token))["player"] == one.player


async def test_a_hello_that_fails_after_admission_renames_nobody(make_server, monkeypatch):
    """A hello failing part-way (here a registered hook) answers `internal`, closes the
    connection (1011) so that its cleanup undoes the half-made connection, and stores no
    new name: the rename is its last step."""
    app = await make_server()
    one = await player(app.ws_url, "ada")
    session = app.service.session

    async def failing(s) -> None:
        raise RuntimeError("a hook that fails")

    monkeypatch.setattr(session, "registered_hooks", [failing, *session.registered_hooks])
    broken = await Raw.open(app.ws_url)
    await broken.send({"t": "hello", "rid": 1, "v": 1, "token": one.token, "name": "bob"})
    error = await broken.wait("error")
    assert error["code"] == "internal" and error["rid"] == 1
    assert await closed_code(broken) == 1011
    monkeypatch.setattr(
        session, "registered_hooks", [h for h in session.registered_hooks if h is not failing]
    )
    again = await Raw.open(app.ws_url)
    assert (await again.hello(token=one.token))["name"] == "ada"


async def test_a_rename_after_the_profile_expired_makes_no_profile(make_server, monkeypatch):
    """A guest's hello that renames it writes the name last: were its session and profile to
    expire after the resume read them (its last second), the name alone must not make the
    profile again, with no TTL, for good."""
    app = await make_server()
    one = await player(app.ws_url, "ada")
    session = app.service.session
    redis = app.store.redis

    async def expired(s) -> None:
        await redis.delete(session_key(s.guest_token), profile_key(s.pid))

    monkeypatch.setattr(session, "registered_hooks", [expired, *session.registered_hooks])
    again = await Raw.open(app.ws_url)
    assert (await again.hello(token=one.token, name="bob"))["name"] == "bob"
    assert not await redis.exists(profile_key(one.player))
    await asyncio.gather(one.close(), again.close())
