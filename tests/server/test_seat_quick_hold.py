"""A waiting casual quick-match entry's seat (`quick_hold`) lasts as long as the entry waits,
not a fixed hour from its `quick`: arrivals keep a queue alive (QUICK_TTL_S from the last
one), so an entry may wait longer than its reservation's deadline. The seats' prune keeps a
hold whose entry still waits (its holder set exists), and queueing again reserves it anew;
once the entry is gone, a lapsed hold is pruned like any seat."""

from __future__ import annotations

import redis.asyncio as aioredis
from seat_probe import seat_set
from wsclient import player

from server.storage.players import quick_hold, reservations_key

GAME = "fours-up"


async def lapse(redis_url: str, pid: str, seat: str) -> None:
    """The reservation of `seat` is past its deadline (as an hour after the `quick`)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        assert await r.zadd(reservations_key(pid), {seat: 1}, xx=True, ch=True) == 1
    finally:
        await r.aclose()


async def reservation(redis_url: str, pid: str, seat: str) -> float | None:
    r = aioredis.Redis.from_url(redis_url)
    try:
        score = await r.zscore(reservations_key(pid), seat)
        return None if score is None or score < 1000 else float(score)  # a lapsed one counts as none
    finally:
        await r.aclose()


async def test_a_quick_entry_waiting_past_its_deadline_keeps_its_seat(make_server, clean_redis):
    app = await make_server(max_races_per_player=1)
    cy = await player(app.ws_url, "cy")
    hold = quick_hold(GAME, 3)
    assert (await cy.request("quick", game=GAME, seats=3))["t"] == "queued"
    await lapse(clean_redis, cy.player, hold)
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"  # still waiting
    assert await seat_set(clean_redis, cy.player) == {hold}
    # Queued again: reserved anew, from now.
    assert (await cy.request("quick", game=GAME, seats=3))["t"] == "queued"
    assert await reservation(clean_redis, cy.player, hold) is not None
    assert (await cy.request("unqueue", game=GAME))["t"] == "ok"
    assert (await cy.request("create", game=GAME))["t"] == "race"
    await cy.close()


async def test_a_lapsed_quick_hold_goes_once_its_entry_is_gone(make_server, clean_redis):
    """An entry gone without its seat given back (its process died, say): once the
    reservation lapses, the seat is free again."""
    app = await make_server(max_races_per_player=1)
    cy = await player(app.ws_url, "cy")
    hold = quick_hold(GAME, 3)
    assert (await cy.request("quick", game=GAME, seats=3))["t"] == "queued"
    assert await app.service.store.quick_leave(GAME, [3], cy.player)  # no release of the seat
    assert (await cy.request("create", game=GAME))["code"] == "too-many-races"  # reserved still
    await lapse(clean_redis, cy.player, hold)
    rid = (await cy.request("create", game=GAME))["race"]
    assert await seat_set(clean_redis, cy.player) == {rid}
    await cy.close()
