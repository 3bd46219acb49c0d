"""Competing error codes over real sockets: each pair of docs/protocol.md §6
"Which error first" answered in the documented order."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from test_server_race import WIN, make_race, play
from wsclient import player

from server import storage as S


def code(reply: dict) -> str | None:
    return reply.get("code") if reply.get("t") == "error" else None


async def test_race_started_comes_before_race_full(server):
    url = server.ws_url
    ada, bob, eve = [await player(url, n) for n in ("ada", "bob", "eve")]
    # Full, not started: race-full.
    full = (await ada.request("create", game="fours-up"))["race"]
    assert (await bob.request("join", race=full))["t"] == "race"
    assert code(await eve.request("join", race=full)) == "race-full"
    # Full and started (every seat taken, everyone ready): race-started.
    for c in (ada, bob):
        assert (await c.request("ready", race=full))["t"] == "race"
    assert code(await eve.request("join", race=full)) == "race-started"
    # A private race full and started: without its invite an outsider learns only that it is private.
    snap = await ada.request("create", game="fours-up", private=True)
    rid, invite = snap["race"], snap["invite"]
    assert (await bob.request("join", race=rid, invite=invite))["t"] == "race"
    assert code(await eve.request("join", race=rid)) == "private-race"
    assert code(await eve.request("join", race=rid, invite=invite)) == "race-full"
    for c in (ada, bob):
        assert (await c.request("ready", race=rid))["t"] == "race"
    assert code(await eve.request("join", race=rid)) == "private-race"
    assert code(await eve.request("join", race=rid, invite=invite)) == "race-started"
    assert code(await eve.request("join", race="r" + "0" * 16, invite=invite)) == "no-such-race"
    for c in (ada, bob, eve):
        await c.close()


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
async def test_is_player_comes_before_private_race(server):
    url = server.ws_url
    ada, eve = await player(url, "ada"), await player(url, "eve")
    rid = (await ada.request("create", game="fours-up", private=True))["race"]
    assert code(await ada.request("spectate", race=rid)) == "is-player"
    assert code(await eve.request("spectate", race=rid)) == "private-race"
    # A daily attempt: its player is a player too.
    attempt = (await eve.request("daily_start", game="racing-aces"))["race"]
    assert code(await eve.request("spectate", race=attempt)) == "is-player"
    assert code(await ada.request("spectate", race=attempt)) == "private-race"
    for c in (ada, eve):
        await c.close()


async def test_race_not_running_comes_before_game_over(server):
    server.service.seed_factory = lambda: WIN["seed"]
    url = server.ws_url
    ada, bob, cyd = await player(url, "ada"), await player(url, "bob"), await player(url, "cyd")
    rid = await make_race(server, [ada, bob, cyd], WIN["game"])
    done = len(WIN["moves"])
    acks = await play(ada, rid, WIN["moves"])
    assert acks[-1]["won"]
    assert (await bob.request("finish", race=rid))["t"] == "ok"
    # The race runs (cyd plays): a player whose game is over gets game-over.
    assert code(await ada.request("move", race=rid, n=done, move="draw")) == "game-over"
    assert code(await bob.request("move", race=rid, n=0, move="draw")) == "game-over"
    assert code(await bob.request("finish", race=rid)) == "game-over"
    assert (await cyd.request("finish", race=rid))["t"] == "ok"
    for c in (ada, bob, cyd):
        await c.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    # The race is over: race-not-running for everyone, whatever their own game says.
    for c, n in ((ada, done), (ada, done + 3), (bob, 0), (cyd, 0)):
        assert code(await c.request("move", race=rid, n=n, move="draw")) == "race-not-running"
        assert code(await c.request("finish", race=rid)) == "race-not-running"
    for c in (ada, bob, cyd):
        await c.close()


async def test_race_not_running_comes_before_illegal_move_once_the_time_is_up(server):
    """Past the deadline by the process's clock, before the race's end is stored, an illegal
    move is answered race-not-running, as it will be once the end is stored: on the hot path
    (the game cached) and on the slow one (reloaded)."""
    url = server.ws_url
    ada, bob = await player(url, "ada"), await player(url, "bob")
    rid = await make_race(server, [ada, bob], "fours-up")
    svc = server.service
    assert code(await ada.request("move", race=rid, n=0, move="t1>t1")) == "illegal-move"
    room = svc.local[rid]
    room.deadline = svc.now_ms() - 1  # this process's view: the time is up; Redis' still runs
    assert code(await ada.request("move", race=rid, n=0, move="t1>t1")) == "race-not-running"
    del svc.games[(rid, ada.player)]  # the slow path
    assert code(await ada.request("move", race=rid, n=0, move="t1>t1")) == "race-not-running"
    # every error reply is counted in /metrics' solrace_errors_total, the move path's too
    assert server.metrics.errors["illegal-move"] == 1 and server.metrics.errors["race-not-running"] == 2
    for c in (ada, bob):
        await c.close()


async def test_game_over_comes_before_illegal_move_once_a_berserk_clock_ran_out(server):
    """A berserk player's own deadline (the player hash's `dl`) passed, before the clock
    stored their timeout: an illegal move is answered game-over, as a legal one is by Redis."""
    url = server.ws_url
    ada, bob = await player(url, "ada"), await player(url, "bob")
    rid = await make_race(server, [ada, bob], "fours-up")
    svc = server.service
    r = aioredis.Redis.from_url(server.settings.redis)
    try:
        await r.hset(S.player_key(rid, ada.player), "dl", svc.now_ms() - 1)  # as a berserk's clock
    finally:
        await r.aclose()
    del svc.games[(rid, ada.player)]  # reloaded with its own deadline
    assert code(await ada.request("move", race=rid, n=0, move="t1>t1")) == "game-over"
    assert code(await ada.request("move", race=rid, n=0, move="t1>t1")) == "game-over"  # cached
    assert code(await ada.request("move", race=rid, n=0, move="draw")) == "game-over"  # Redis says so
    assert code(await bob.request("move", race=rid, n=0, move="t1>t1")) == "illegal-move"
    for c in (ada, bob):
        await c.close()
