"""A move is decided only on a cached game whose every earlier move Redis confirmed.

One player on two processes (docs/protocol.md allows several connections of one
player, on any process): each process caches the player's game. When one cache
falls behind, the move script's count check refuses its next move; a move sent
right behind that one, before the refusal came back, must not be decided on the
cache that already applied the refused move. Otherwise it carries the right count,
Redis stores it, and the stored log is no longer a legal game."""

from __future__ import annotations

import asyncio

import pytest
from wsclient import Raw

from protocol import rules

pytestmark = pytest.mark.timeout(60)


async def stored_game(app, rid: str, pid: str) -> rules.Game:
    load = await app.service.store.load_player(rid, pid)  # replays the stored log
    assert load.game is not None
    return load.game.game()


def diverging_moves(g: rules.Game) -> tuple[str, str, str] | None:
    """a and x both legal now, and y legal after x but not after a (None if there are none)."""
    legal = g.legal_moves()
    for a in legal:
        after_a = g.copy()
        after_a.play(a)
        for x in legal:
            if x == a:
                continue
            after_x = g.copy()
            after_x.play(x)
            for y in after_x.legal_moves():
                if not after_a.is_legal(y):
                    return a, x, y
    return None


async def test_a_move_sent_behind_a_refused_one_is_decided_on_the_stored_game(make_server) -> None:
    app1, app2 = await make_server(), await make_server()
    c1 = await Raw.open(app1.ws_url)
    c2 = await Raw.open(app2.ws_url)
    try:
        await c1.hello("ada")
        await c2.hello(token=c1.token)
        pid = c1.player
        rid = (await c1.request("create", game="racing-aces", seats=1))["race"]
        await c1.request("ready", race=rid)
        await c1.wait("start")

        # process 2 plays (and caches the game) until two moves lead apart
        n, found = 0, None
        while found is None:
            assert n < 40, "no position with diverging moves in 40 moves"
            legal = (await stored_game(app1, rid, pid)).legal_moves()
            move = next((mv for mv in legal if mv != "draw"), legal[0])
            assert (await c2.request("move", race=rid, n=n, move=move))["t"] == "ack"
            n += 1
            found = diverging_moves(await stored_game(app1, rid, pid))
        a, x, y = found
        # process 1 plays move n: process 2's cache is behind
        assert (await c1.request("move", race=rid, n=n, move=a))["t"] == "ack"

        # the stale connection sends x (n) and, before its answer, y (n + 1)
        await asyncio.gather(
            c2.send({"t": "move", "rid": 901, "race": rid, "n": n, "move": x}),
            c2.send({"t": "move", "rid": 902, "race": rid, "n": n + 1, "move": y}),
        )
        rx = await c2.wait(lambda msg: msg.get("rid") == 901)
        ry = await c2.wait(lambda msg: msg.get("rid") == 902)
        assert rx["t"] == "error" and rx["code"] == "out-of-sync", rx
        # y is illegal after the stored moves (first, a): refused as such, never stored
        assert ry["t"] == "error" and ry["code"] == "illegal-move", ry

        g = await stored_game(app2, rid, pid)  # the stored log still replays
        assert g.to_text() == (await stored_game(app1, rid, pid)).to_text()
        state = await c2.request("resync", race=rid)
        assert state["t"] == "state" and state["you"]["n"] == n + 1, state
    finally:
        await c1.close()
        await c2.close()
