"""A daily start whose race was made but whose bind to the attempt failed (server/daily/service.py
`Daily._bind_race`): the bind is tried again, and a try whose reply was lost counts as bound.
Left unbound, the race was an orphan nobody discarded: sealed in its lobby with the player's
seat, which they cannot leave, for the lobby's day; and their next start waited for the stale
claim, then made a second race. The failures are injected into the real server's daily
(Redis blips); everything else is real."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from injected import Blip
from redis_replies import text
from seat_probe import seat_set
from wsclient import player

from server.daily import Daily, days
from server.daily import keys as dkeys

GAME = "racing-aces"


def failing_bind_once(daily: Daily, *, applied: bool) -> list[str]:
    """The daily's BIND of a race (not a claim's release) fails once: before Redis ran it, or
    after (`applied`: its reply lost). Returns the races whose bind failed."""
    real = daily._bind
    failed: list[str] = []

    async def flaky(*, keys: Any, args: Any) -> Any:
        if args[2] and not failed:
            failed.append(args[2])
            if applied:
                await real(keys=keys, args=args)
            raise Blip("redis blip while binding the attempt's race")
        return await real(keys=keys, args=args)

    daily._bind = flaky  # type: ignore[method-assign]
    return failed


def noting_races(app: Any) -> list[str]:
    """The races `create_solo` makes, in order."""
    lobby = app.service.lobby
    real = lobby.create_solo
    made: list[str] = []

    async def noting(*args: Any, **kw: Any) -> Any:
        race = await real(*args, **kw)
        made.append(race.race)
        return race

    lobby.create_solo = noting
    return made


@pytest.mark.daily
@pytest.mark.parametrize("applied", [False, True], ids=["not-applied", "reply-lost"])
async def test_a_failed_bind_still_starts_the_one_attempt(make_server, clean_redis, applied):
    app = await make_server()
    made = noting_races(app)
    failed = failing_bind_once(app.daily, applied=applied)
    ada = await player(app.ws_url, "ada")
    reply = await ada.request("daily_start", game=GAME)
    assert reply["t"] == "race", reply
    rid = reply["race"]
    assert failed == made == [rid]  # one race: the one whose bind failed, not discarded
    assert await app.daily.attempt(GAME, ada.player) == rid
    assert await seat_set(clean_redis, ada.player) == {rid}
    _now, race = await app.service.store.load_race(rid)
    assert race is not None and race.seat_of(ada.player) is not None
    await ada.close()


class Races:
    """The race side of a start, for `Daily` alone: makes races, notes the discarded ones."""

    def __init__(self) -> None:
        self.made: list[str] = []
        self.discarded: list[str] = []

    async def create(self, deal: Any, player: str, time_limit_s: int) -> str:
        self.made.append(f"r{len(self.made) + 1}")
        return self.made[-1]

    async def discard(self, race: str) -> None:
        self.discarded.append(race)


async def test_a_race_whose_mark_failed_is_discarded_though_the_claim_could_not_be_given_back(
    clean_redis,
):
    """The mark fails, and so does the release of the claim (the same blip): the race is
    discarded all the same (it used to be left holding the seat); the claim goes stale."""
    r = aioredis.Redis.from_url(clean_redis)
    now = [days.opens_at("2025-03-14") + 12 * 3600_000]
    daily = Daily(r, clock=lambda: now[0], pending_stale_ms=15_000)
    real_set, real_bind = r.set, daily._bind

    async def mark_fails(name: Any, *args: Any, **kw: Any) -> Any:
        if name == dkeys.race("r1"):
            raise Blip("redis blip while marking the race")
        return await real_set(name, *args, **kw)

    async def release_fails(*, keys: Any, args: Any) -> Any:
        if not args[2]:
            raise Blip("redis blip while giving the claim back")
        return await real_bind(keys=keys, args=args)

    r.set = mark_fails  # type: ignore[method-assign]
    daily._bind = release_fails  # type: ignore[method-assign]
    races = Races()
    with pytest.raises(Blip):
        await daily.start(GAME, "ada", races.create, races.discard)
    assert races.made == races.discarded == ["r1"]
    date = daily.today()
    assert text(await r.hget(dkeys.attempts(GAME, date), "ada") or b"").startswith("pending:")
    now[0] += 15_001  # the claim goes stale
    r.set, daily._bind = real_set, real_bind  # type: ignore[method-assign]
    att = await daily.start(GAME, "ada", races.create, races.discard)
    assert att.race == "r2" and races.discarded == ["r1"]
    await r.aclose()


def failing_binds(daily: Daily, *, releases: bool) -> tuple[list[str], Callable[[], None]]:
    """Every BIND of a race fails (each try of `_bind_race`), and, if `releases`, every
    release of a claim too: Redis failing through the whole start. Returns the races whose
    binds failed (one per try), and what makes the binds work again."""
    real = daily._bind
    failed: list[str] = []

    def mend() -> None:
        daily._bind = real  # type: ignore[method-assign]

    async def flaky(*, keys: Any, args: Any) -> Any:
        if args[2]:
            failed.append(args[2])
            raise Blip("redis blip while binding the attempt's race")
        if releases:
            raise Blip("redis blip while giving the claim back")
        return await real(keys=keys, args=args)

    daily._bind = flaky  # type: ignore[method-assign]
    return failed, mend


async def seated(app: Any, rid: str, pid: str) -> bool:
    _now, race = await app.service.store.load_race(rid)
    return race is not None and race.seat_of(pid) is not None


@pytest.mark.daily
async def test_a_race_whose_every_bind_failed_is_discarded_and_the_next_start_plays(make_server, clean_redis):
    """Every bind try fails, the claim's release works: the race made is discarded and the
    claim given back, so the next start makes the attempt at once (it used to wait for the
    claim to go stale, `daily-busy`, with the race left in its lobby holding the seat)."""
    app = await make_server()
    made = noting_races(app)
    failed, mend = failing_binds(app.daily, releases=False)
    ada = await player(app.ws_url, "ada")
    reply = await ada.request("daily_start", game=GAME)
    assert reply.get("code") == "internal", reply
    (orphan,) = made
    assert failed == [orphan] * 4  # BIND_ATTEMPTS
    assert await app.daily.attempt(GAME, ada.player) is None
    assert not await seated(app, orphan, ada.player)
    assert await seat_set(clean_redis, ada.player) == set()
    mend()
    reply = await ada.request("daily_start", game=GAME)
    assert reply["t"] == "race", reply
    rid = reply["race"]
    assert made == [orphan, rid] and rid != orphan
    assert await app.daily.attempt(GAME, ada.player) == rid
    assert await seat_set(clean_redis, ada.player) == {rid}
    await ada.close()


@pytest.mark.daily
async def test_a_race_left_unbound_by_an_outage_is_discarded_by_the_next_start(make_server, clean_redis):
    """Every bind and every release fail: whether the race is the attempt cannot be told, so
    it is left, and the claim goes stale. The next start makes the attempt and takes the
    player out of the race left behind (it used to stay, sealed in its lobby with the
    player's seat, until it expired)."""
    app = await make_server()
    made = noting_races(app)
    _failed, mend = failing_binds(app.daily, releases=True)
    ada = await player(app.ws_url, "ada")
    reply = await ada.request("daily_start", game=GAME)
    assert reply.get("code") == "internal", reply
    (orphan,) = made
    assert await seated(app, orphan, ada.player)  # left: it might have been the attempt
    assert text(await app.daily.redis.hget(dkeys.attempts(GAME, app.daily.today()), ada.player)).startswith(
        "pending:"
    )
    mend()
    app.daily.pending_stale_ms = 0  # the claim goes stale at once
    reply = await ada.request("daily_start", game=GAME)
    assert reply["t"] == "race", reply
    rid = reply["race"]
    assert made == [orphan, rid]
    assert await app.daily.attempt(GAME, ada.player) == rid
    assert not await seated(app, orphan, ada.player)
    assert await seat_set(clean_redis, ada.player) == {rid}
    await ada.close()


def counting(obj: Any, name: str) -> list[int]:
    """`obj.name(...)` works as before, and each call is counted: `[calls]`."""
    real = getattr(obj, name)
    calls = [0]

    async def counted(*args: Any, **kw: Any) -> Any:
        calls[0] += 1
        return await real(*args, **kw)

    setattr(obj, name, counted)
    return calls


@pytest.mark.daily
async def test_a_start_reads_the_players_races_only_when_they_hold_another_seat(make_server):
    """The sweep for a start's orphans (handlers `_discard_orphans`) reads the player's races
    only when they hold a seat besides the attempt's, as an orphan does (the test above): it
    read them on every start."""
    app = await make_server()
    reads = counting(app.service.store, "player_races")
    ada = await player(app.ws_url, "ada")
    rid = (await ada.request("daily_start", game=GAME))["race"]
    before = reads[0]
    again = await ada.request("daily_start", game=GAME)
    assert again["t"] == "race" and again["race"] == rid, again
    assert reads[0] == before
    lobby = (await ada.request("create", game=GAME, seats=2))["race"]
    before = reads[0]
    again = await ada.request("daily_start", game=GAME)
    assert again["t"] == "race" and again["race"] == rid, again
    assert reads[0] > before
    assert await seated(app, lobby, ada.player)  # not an orphan: left as it is
    await ada.close()
