"""No Redis key lives forever unless it is meant to (docs/operations.md "Memory, Redis").

Redis holds the only copy of everything and runs for months: a key written without a TTL,
or made again by a late write after its TTL (an HSET, SADD or ZADD on a key that expired
creates it anew, with none), stays for good. This runs a realistic mix of flows against a
real server, then reads every key in Redis: each has a TTL, or is one of the keys listed in
PERMANENT, each with why it may stay. A new key with no TTL that nobody listed fails here.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis_replies import text
from test_server_accounts import account, rated_race
from test_server_race import make_race, play
from waiting import until
from wsclient import Raw, player

from client.bots.service import BotService, Limits
from server.arena import keys as akeys
from server.handlers.bots import WORKER_ALIVE_MS
from server.storage.bots import BotQueue, now_ms

# A daily attempt on the real clock (tests/conftest.py), and an arena's 10 s.
pytestmark = [pytest.mark.daily, pytest.mark.timeout(180)]

GAME = "racing-aces"

# Keys that may live without a TTL, by pattern (G a game, D a date, P a player, A an arena),
# each with why. A key here is either a record kept for good by design (its size bounded
# by accounts, games, days or arenas, never by guests' traffic alone), or a process-wide
# structure of fixed count whose members are cleaned up by their own rules.
PERMANENT: dict[str, str] = {
    # global indexes and queues (server/storage/keys.py, storage/bots.py): one each
    r"races:timers": "the races' timers; each comes due in its race's life, and goes with its last tick",
    r"races:public": "the public races; those gone are dropped by reads and the leftovers sweep",
    r"bots:requests": "the bot request queue; expired requests are dropped by workers, pushes and the sweep",
    r"bots:workers": "the bot workers' heartbeats; stale ones pruned by workers_alive",
    r"\{bots:requests\}:(slots|taking|seen|bots|leases)": "the bot workers' bookkeeping, pruned by its scripts",
    # accounts and ratings (server/ratings/keys.py): accounts are kept for good
    r"\{accounts\}:(names|reserved)": "the accounts' name index (reservations settle within minutes)",
    r"\{acct:p[0-9a-f]{16}\}": "an account's record",
    r"\{rating:[a-z-]+\}:(players|ver|board|pending)": "a game's ratings (accounts only)",
    r"\{rating:[a-z-]+\}:hist:p[0-9a-f]{16}": "an account's rated races of a game, capped",
    r"\{mm:[a-z-]+\}:pool": "a game's rated pool; entries leave when taken, left or stale",
    # dailies (server/daily/keys.py): each day's final leaderboard is a permanent record
    r"\{daily\}:secret": "the server secret the daily seeds derive from",
    r"\{daily:[a-z-]+:\d{4}-\d\d-\d\d\}:(meta|board|entries|replays|pick)": "a day's record",
    r"\{dailyp:p[0-9a-f]{16}\}:[a-z-]+": "a player's daily history (docs/protocol.md §5)",
    # arenas (server/arena/keys.py): final standings and their proof are kept for good
    r"\{arenas\}:index": "the arenas by start",
    r"\{arena:[\w-]+\}:(meta|standings|board|results|final|h:(p|bot-)[0-9a-f]{16})": "an arena's record",
    r"\{arena-player:(p|bot-)[0-9a-f]{16}\}:podiums": "a player's podium places",
    r"solrace:probe": "the private redis-server supervisor's probe write (storage/supervisor.py)",
    # the solver's certified deals (server/certify/keys.py): a pool per game, kept filled
    r"certify:pool:[a-z-]+": "a game's certified deals, each taken once",
}


# Some key each flow below leaves (a guest's session and profile, a race, a rematch link, the
# per-address counts, an account's sessions, a rating, a daily attempt, an arena's record, a
# bot's lease, a quick-match unqueue's marks, a running arena's pairing).
EXPECTED = (
    r"sess:[0-9a-f]{64}",
    r"pl:\{p[0-9a-f]{16}\}:recent:e",
    r"\{race:r[0-9a-f]{16}\}:log:p[0-9a-f]{16}",
    r"rematch:\{r[0-9a-f]{16}\}",
    r"lim:(sess|lobbies):127\.0\.0\.1",
    r"\{acct:p[0-9a-f]{16}\}:sessions",
    r"\{rating:racing-aces\}:hist:p[0-9a-f]{16}",
    r"\{daily:racing-aces:[\d-]+\}:attempts",
    r"\{arena:quick-one\}:final",
    r"\{arena:long-one\}:(races|busy)",
    r"\{bots:requests\}:leases",
    r"\{quick:racing-aces:3\}:gone:p[0-9a-f]{16}",
    r"\{mm:racing-aces\}:gone:p[0-9a-f]{16}",
)


def permanent_reason(key: str) -> str | None:
    return next((why for pattern, why in PERMANENT.items() if re.fullmatch(pattern, key)), None)


async def key_ttls(redis_url: str) -> dict[str, int]:
    """Every key in Redis, with its PTTL (ms; -1: none)."""
    r = aioredis.Redis.from_url(redis_url)
    try:
        return {text(k): await r.pttl(k) async for k in r.scan_iter(count=1000)}
    finally:
        await r.aclose()


def started(rid: str) -> Any:
    return lambda f: f.get("t") == "start" and f["race"] == rid


def ended(rid: str) -> Any:
    return lambda f: f.get("t") == "end" and f["race"] == rid


async def ok(c: Raw, t: str, **fields: Any) -> dict[str, Any]:
    reply = await c.request(t, **fields)
    assert reply["t"] != "error", reply
    return reply


async def finish_all(rid: str, *players: Raw) -> None:
    for c in players:
        await ok(c, "finish", race=rid)
    for c in players:
        await c.wait(ended(rid))


async def casual_race_watched_and_rematched(url: str, app: Any) -> None:
    """A race of two guests to its end, watched by a third who leaves mid-race; then a rematch
    (a lobby left waiting), and a resume under a new name."""
    ada, bob, cy = await player(url, "ada"), await player(url, "bob"), await player(url, "cy")
    rid = await make_race(app, [ada, bob], GAME)
    await ok(cy, "spectate", race=rid)
    await play(ada, rid, ["draw", "draw"])
    await cy.close()  # counted out as the race goes on
    await play(bob, rid, ["draw"])
    await finish_all(rid, ada, bob)
    assert (await ok(ada, "rematch", race=rid))["race"] != rid
    again = await Raw.open(url)
    await again.hello(name="bob2", token=bob.token)
    await asyncio.gather(ada.close(), bob.close(), again.close())


async def quick_matches(url: str) -> None:
    """Two guests quick-matched to the end of their race; a third queues, then unqueues; a
    fourth queues and closes its connection; a public lobby whose host leaves."""
    dan, eve = await player(url, "dan"), await player(url, "eve")
    for c in (dan, eve):
        await ok(c, "quick", game=GAME)
    snap = await dan.wait(lambda f: f.get("t") == "race" and f.get("status") in ("countdown", "running"))
    rid = snap["race"]
    for c in (dan, eve):
        await c.wait(started(rid))
    await finish_all(rid, dan, eve)
    fay, gus = await player(url, "fay"), await player(url, "gus")
    await ok(fay, "quick", game=GAME, seats=3)
    await ok(fay, "unqueue", game=GAME)
    await ok(gus, "quick", game=GAME, seats=4)
    await ok(gus, "create", game="fours-up", seats=2)  # public, listed, then left alone
    await asyncio.gather(dan.close(), eve.close(), fay.close(), gus.close())


async def accounts_and_a_rated_race(url: str) -> None:
    """Two accounts (claimed, logged in again, a password changed, a session logged out) race
    rated twice to the end (created, then matched from the pool); one waits in the pool again
    and leaves it."""
    hal, ivy = await account(url, "hal"), await account(url, "ivy")
    first = await rated_race(hal, ivy)
    for c in (hal, ivy):  # matched from the rating pool
        await ok(c, "quick", game=GAME, rated=True)
    snap = await hal.wait(lambda f: f.get("t") == "race" and bool(f.get("rated")) and f["race"] != first)
    rid = snap["race"]
    for c in (hal, ivy):
        await c.wait(started(rid))
    await finish_all(rid, hal, ivy)
    for c in (hal, ivy):
        await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid)
    await ok(hal, "quick", game=GAME, rated=True)
    await ok(hal, "unqueue", game=GAME)
    other = await Raw.open(url)
    await other.hello()
    login = await ok(other, "login", name="ivy", password="correct horse")
    await ok(ivy, "password", old="correct horse", new="another horse")
    phone = await Raw.open(url)
    await phone.hello()
    login = await ok(phone, "login", name="hal", password="correct horse")
    await phone.close()
    elsewhere = await Raw.open(url)
    await elsewhere.hello(token=login["token"])
    await ok(elsewhere, "logout")
    await asyncio.gather(hal.close(), ivy.close(), other.close(), elsewhere.close())


async def a_daily_attempt(url: str) -> None:
    jo = await player(url, "jo")
    rid = (await ok(jo, "daily_start", game=GAME))["race"]
    await jo.wait(started(rid))
    await play(jo, rid, ["draw"])
    await finish_all(rid, jo)
    await until(lambda: _on_the_board(jo), what="the attempt on the board")
    await jo.close()


async def _on_the_board(c: Raw) -> bool:
    return (await ok(c, "leaderboard", game=GAME))["me"] is not None


async def an_arena(url: str, redis_url: str) -> None:
    """An arena of 10 s: two players paired once, their race played to its end, the arena
    finalized and its podium written."""
    kim, lea = await player(url, "kim"), await player(url, "lea")
    await ok(kim, "arena_create", arena="quick-one", game=GAME, duration_ms=10_000, time_limit_s=30)
    for c in (kim, lea):
        await ok(c, "arena_join", arena="quick-one")
    snap = await kim.wait(lambda f: f.get("t") == "race" and f.get("arena") == "quick-one")
    rid = snap["race"]
    for c in (kim, lea):
        await ok(c, "arena_withdraw", arena="quick-one")
        await c.wait(started(rid))
    await play(kim, rid, ["draw"])
    await finish_all(rid, kim, lea)
    r = aioredis.Redis.from_url(redis_url)
    try:

        async def final() -> bool:
            return all(await r.hmget(akeys.meta("quick-one"), "finalized", "podium"))

        await until(final, interval=0.1, what="the arena finalized (at its end), its podium written")
    finally:
        await r.aclose()
    await asyncio.gather(kim.close(), lea.close())


async def an_arena_left_running(url: str) -> None:
    """An arena still running when the keys are read (never finalized, as after a long outage):
    two players joined and paired once, then gone. Its working keys expire on their own."""
    max_, nia = await player(url, "max"), await player(url, "nia")
    await ok(max_, "arena_create", arena="long-one", game=GAME, duration_ms=600_000, time_limit_s=600)
    for c in (max_, nia):
        await ok(c, "arena_join", arena="long-one")
    await max_.wait(lambda f: f.get("t") == "race" and f.get("arena") == "long-one")
    await asyncio.gather(max_.close(), nia.close())


async def a_bot_in_a_lobby(url: str, redis_url: str) -> None:
    """A bot asked for, played by a worker in this process, seated in a lobby; the worker
    then stops (its bot's lease released)."""
    stop = asyncio.Event()
    worker = asyncio.create_task(
        BotService(url, redis_url, Limits(max_bots=1, think_ms=20, move_ms=0, wait_s=60)).run(stop)
    )
    r = aioredis.Redis.from_url(redis_url)
    mo = await player(url, "mo")
    try:
        queue = BotQueue(r)

        async def free() -> bool:
            return await queue.free_slots(await now_ms(r), WORKER_ALIVE_MS) > 0

        await until(free, interval=0.05, what="the bot worker's free slot")
        rid = (await ok(mo, "create", game="fours-up", seats=2, private=True))["race"]
        await ok(mo, "bot", race=rid)
        await mo.wait(
            lambda f: f.get("t") == "race" and any(p["player"].startswith("bot-") for p in f["players"])
        )
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(worker, 30)
        await mo.close()
        await r.aclose()


async def test_every_key_a_realistic_mix_of_flows_leaves_expires_or_is_listed(make_server, clean_redis):
    app = await make_server(
        limit_exempt="",  # the per-address counts of 127.0.0.1 are kept too
        arena_create=1,
        arena_schedule="off",
        arena_tick_ms=100,
        password_hash_passes=1,
        password_hash_memory_kib=1024,
        lobby_away_ms=200,
    )
    url = app.ws_url
    await asyncio.gather(
        casual_race_watched_and_rematched(url, app),
        quick_matches(url),
        accounts_and_a_rated_race(url),
        a_daily_attempt(url),
        an_arena(url, clean_redis),
        an_arena_left_running(url),
        a_bot_in_a_lobby(url, clean_redis),
    )
    ttls = await key_ttls(clean_redis)
    # The flows ran as meant: some key of each is there (a flow that wrote nothing checks nothing).
    for shape in EXPECTED:
        assert any(re.fullmatch(shape, k) for k in ttls), shape
    assert sorted(k for k, ttl in ttls.items() if ttl == -1 and permanent_reason(k) is None) == []


def test_every_pattern_listed_as_permanent_is_one_the_server_writes() -> None:
    """The list stays short and honest: each pattern names keys of the layout documented in a
    keys module (a typo would silently allow nothing, or too much)."""
    samples = [
        "races:timers",
        "{bots:requests}:leases",
        "{acct:p0123456789abcdef}",
        "{rating:fours-up}:hist:p0123456789abcdef",
        "{daily:fours-up:2026-12-04}:entries",
        "{dailyp:p0123456789abcdef}:fours-up",
        "{arena:hourly-1}:h:p0123456789abcdef",
        "certify:pool:fours-up",
    ]
    assert all(permanent_reason(k) for k in samples)
    for transient in (
        "{race:r0123456789abcdef}",
        "pl:{p0123456789abcdef}",
        "{daily:fours-up:2026-12-04}:attempts",
        "{arena:hourly-1}:joined",
        "{acct:p0123456789abcdef}:sessions",
        "{mm:fours-up}:sessions",
    ):
        assert permanent_reason(transient) is None, transient
