"""Replies in request order on every path (docs/protocol.md §1), fast lane included.

A move's ack comes back from Redis while a ping, an illegal move or a
malformed frame is answered at once; the connection's ordered reply queue
(server/net/conn.py) holds those answers until the ack before them is out.
"""

from __future__ import annotations

import asyncio
import os

import msgpack
from test_server_race import make_race
from waiting import until
from wsclient import Raw, player


def masked(obj: dict) -> bytes:
    """One masked binary client frame carrying `obj`."""
    payload = msgpack.packb(obj)
    mask = os.urandom(4)
    n = len(payload)
    head = b"\x82" + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def replies(c: Raw, rids: list[int]) -> list[dict]:
    """The next replies carrying these request ids, in the order they arrived."""
    got: list[dict] = []
    for _ in rids:
        got.append(await c.wait(lambda m: m.get("rid") in rids and m not in got))
    return got


async def test_move_ping_illegal_malformed_in_one_write_answered_in_order(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "fours-up")
    first = await a.request("move", race=rid, n=0, move="draw", view=True)  # warms the move cache
    assert first["t"] == "ack", first
    legal, n = first["legal"], first["n"]
    rounds = 0
    while rounds < 40 and legal:
        move = "draw" if "draw" in legal else legal[0]
        ids = [next(a.rids) for _ in range(4)]
        batch = [
            masked({"t": "move", "rid": ids[0], "race": rid, "n": n, "move": move, "view": True}),
            masked({"t": "ping", "rid": ids[1]}),
            masked({"t": "move", "rid": ids[2], "race": rid, "n": n + 1, "move": "t0>t0"}),
            masked({"t": "move", "rid": ids[3], "race": rid}),  # no n, no move: bad-message
        ]
        a.ws.transport.write(b"".join(batch))  # one TCP write
        got = await replies(a, ids)
        assert [r["rid"] for r in got] == ids, got
        ack, pong, illegal, bad = got
        assert ack["t"] == "ack" and pong["t"] == "pong", got
        assert illegal["code"] == "illegal-move" and bad["code"] == "bad-message", got
        legal, n = ack["legal"], ack["n"]
        rounds += 1
    assert rounds >= 20, f"the game ran out of moves after {rounds} rounds"


async def test_slow_path_move_then_pings_in_order(server):
    """The first move of a connection takes the slow path (a cache load); what follows waits for its ack."""
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "fours-up")
    ids = [next(a.rids) for _ in range(5)]
    batch = [masked({"t": "move", "rid": ids[0], "race": rid, "n": 0, "move": "draw"})]
    batch += [masked({"t": "ping", "rid": i}) for i in ids[1:]]
    a.ws.transport.write(b"".join(batch))
    got = await replies(a, ids)
    assert [r["rid"] for r in got] == ids, got
    assert got[0]["t"] == "ack" and all(r["t"] == "pong" for r in got[1:]), got


async def test_a_hint_waiting_for_the_solver_holds_no_later_reply(server, monkeypatch):
    """§1: `hint` and `analysis` are answered when ready, beside the queue. A hint the solver
    takes seconds over must not hold the pings (a browser closes a connection whose ping
    goes unanswered) nor the acks of the moves sent after it; two may wait at once."""
    solved = asyncio.Event()
    asked: list[str] = []

    async def slow_solver(fn, view, *args):
        asked.append(view)
        await solved.wait()
        return None

    monkeypatch.setattr(server.certifier, "ask", slow_solver)
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], "fours-up")
    ids = [next(a.rids) for _ in range(5)]
    batch = [
        masked({"t": "hint", "rid": ids[0], "race": rid}),
        masked({"t": "ping", "rid": ids[1]}),
        masked({"t": "move", "rid": ids[2], "race": rid, "n": 0, "move": "draw"}),
        masked({"t": "hint", "rid": ids[3], "race": rid}),
        masked({"t": "hint", "rid": ids[4], "race": rid}),  # a third waiting one: refused
    ]
    a.ws.transport.write(b"".join(batch))
    pong, ack, busy = await replies(a, [ids[1], ids[2], ids[4]])
    assert [pong["t"], ack["t"]] == ["pong", "ack"], (pong, ack)
    assert busy["rid"] == ids[4] and busy["code"] == "solver-busy" and busy["retry_ms"] > 0, busy
    await until(lambda: len(asked) == 2, what="both hints at the solver")
    solved.set()
    hints = await replies(a, [ids[0], ids[3]])
    assert sorted(h["rid"] for h in hints) == [ids[0], ids[3]] and all(h["t"] == "hint" for h in hints), hints


async def test_an_idle_connection_keeps_no_empty_queues(server):
    """The reply order's queue is dropped once drained (the welcome holds a slot in it), and the
    queue for a lagging socket is made only when one lags: an idle connection would otherwise
    carry two empty deques, 1.5 KB of its memory (docs/benchmarks.md, idle players)."""
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    rid = await make_race(server, [a, b], "fours-up")
    await a.request("move", race=rid, n=0, move="draw")
    conns = list(server.gateway.conns)
    assert len(conns) == 2
    await until(lambda: all(c.order is None for c in conns), what="the reply queues drained and dropped")
    assert all(c.queue is None for c in conns)
