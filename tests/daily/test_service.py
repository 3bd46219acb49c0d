"""Daily challenges against a real redis-server, with an injectable clock."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json

import pytest
from waiting import until

from server.daily import Daily, DailyError, Result, days, keys
from server.daily.deals import CACHED_DAYS, DAILY_HISTORY_DAYS, WEEK_MS

GAME = "racing-aces"
DAY = "2025-03-14"
T0 = days.opens_at(DAY)
DAY_MS = days.DAY_MS


class FakeClock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


class Races:
    """A stand-in for the race server's create: counts calls, slow on purpose."""

    def __init__(self, delay: float = 0.01):
        self.calls: list[tuple[str, str, int]] = []
        self.delay = delay

    async def __call__(self, deal, player, time_limit_s):
        self.calls.append((deal.seed, player, time_limit_s))
        await asyncio.sleep(self.delay)
        return f"r{len(self.calls)}-{player}"


@pytest.fixture
def clock():
    return FakeClock(T0 + 12 * 3600_000)


@pytest.fixture
def daily(r, clock):
    return Daily(r, clock=clock, time_limit_s=600)


def result(home, *, total=156, t=None, at=0, moves=10):
    won = home == total
    return Result("won" if won else "finished", won, home, total, moves, t if won else None, t if won else at)


async def play_attempt(daily, races, player, res=None, *, name=None, moves=None):
    att = await daily.start(GAME, player, races)
    out = await daily.record(
        GAME,
        att.date,
        player,
        name or player,
        att.race,
        res or result(10, at=1000),
        moves or [["draw", T0]],
        T0,
    )
    return att, out


# --- secret and deal ------------------------------------------------------------------


async def test_secret_is_created_once_and_shared(r, clock):
    many = [Daily(r, clock=clock) for _ in range(8)]
    secrets = await asyncio.gather(*(d.secret() for d in many))
    assert len(set(secrets)) == 1 and len(secrets[0]) == 64
    assert (await r.get(keys.SECRET)).decode() == secrets[0]
    deals = {(await d.deal(GAME)).seed for d in many}
    assert len(deals) == 1
    # A configured secret wins and is used as given.
    d = Daily(r, clock=clock, secret="configured")
    expected = hmac.new(b"configured", f"{GAME}|{DAY}".encode(), "sha256").hexdigest()
    assert (await d.deal(GAME)).seed == expected


async def test_unknown_game_bad_and_future_dates(daily):
    for call in (daily.info("no-such-game"), daily.info(GAME, "2025-3-1"), daily.info(GAME, "2025-03-15")):
        with pytest.raises(DailyError) as e:
            await call
        assert e.value.code in ("unknown-game", "bad-date", "daily-not-open")


# --- crossing midnight ----------------------------------------------------------------


async def test_open_close_reveal_across_midnight(daily, clock, r):
    info = await daily.info(GAME)
    assert info["date"] == DAY and info["status"] == "open" and info["seed"] is None
    assert info["opens"] == T0 and info["closes"] == T0 + DAY_MS
    commitment = info["commitment"]

    # One ms before midnight: still open, still secret.
    clock.now = T0 + DAY_MS - 1
    assert (await daily.info(GAME, DAY))["seed"] is None

    # Midnight: the day is closed, the seed revealed and it matches the commitment.
    clock.now = T0 + DAY_MS
    closed = await daily.info(GAME, DAY)
    assert closed["status"] == "closed" and closed["final"] is False
    assert hashlib.sha256(closed["seed"].encode()).hexdigest() == commitment == closed["commitment"]
    # The new day has its own deal, open and secret.
    today = await daily.info(GAME)
    assert today["date"] == "2025-03-15" and today["seed"] is None
    assert today["commitment"] != commitment

    # Past the grace, the day is final; the seed is kept with the permanent record.
    clock.now += daily.finalize_grace_ms
    assert (await daily.info(GAME, DAY))["final"] is True
    meta = {k.decode(): v.decode() for k, v in (await r.hgetall(keys.meta(GAME, DAY))).items()}
    assert meta["seed"] == closed["seed"] and meta["commitment"] == commitment
    assert await r.ttl(keys.meta(GAME, DAY)) == -1 and await r.ttl(keys.board(GAME, DAY)) in (-1, -2)


async def test_attempts_are_cut_to_the_close(daily, clock):
    races = Races(0)
    clock.now = T0 + DAY_MS - 60_000  # one minute left
    att = await daily.start(GAME, "early", races)
    assert races.calls[-1][2] == 55  # 60 s minus the start lead, not 600
    clock.now = T0 + DAY_MS - 30_000
    with pytest.raises(DailyError) as e:
        await daily.start(GAME, "late", races)
    assert e.value.code == "daily-closing"
    # The refused claim is released, and the earlier attempt still resumes.
    assert await daily.attempt(GAME, "late") is None
    again = await daily.start(GAME, "early", races)
    assert again.race == att.race and again.resumed
    # After midnight, a start is today's new attempt (another seed).
    clock.now = T0 + DAY_MS
    new = await daily.start(GAME, "early", races)
    assert new.date == "2025-03-15" and not new.resumed and new.race != att.race
    assert races.calls[-1][0] != races.calls[0][0]


async def test_results_after_the_close_until_final(daily, clock):
    races = Races(0)
    att = await daily.start(GAME, "p1", races)
    clock.now = T0 + DAY_MS + 1000  # the race ended at the close; its end arrives late
    out = await daily.record(GAME, DAY, "p1", "P1", att.race, result(20, at=500), [], T0)
    assert out["rank"] == 1
    att2 = await daily.attempt(GAME, "p1", DAY)
    assert att2 == att.race
    clock.now = T0 + DAY_MS + daily.finalize_grace_ms
    assert await daily.finalize(GAME, DAY) is True
    assert await daily.finalize(GAME, DAY) is False  # idempotent
    # A result arriving after the day is frozen changes nothing.
    await daily.redis.hset(keys.attempts(GAME, DAY), "p2", "race:rX")
    assert await daily.record(GAME, DAY, "p2", "P2", "rX", result(100, at=1), [], T0) is None
    assert (await daily.leaderboard(GAME, DAY))["count"] == 1


async def test_a_day_s_attempts_expire_from_the_first_claim(daily, clock, r):
    """A week after the close, as the finalization says, but from the first claim on: a day
    that no process ever finalizes (every process down past the finalizer's look-back) must
    not keep its attempts in Redis for good."""
    att = await daily.start(GAME, "ada", Races(0))
    expected = days.closes_at(DAY) + WEEK_MS - clock.now
    assert expected - 5_000 < await r.pttl(keys.attempts(GAME, DAY)) <= expected
    clock.now += 3600_000  # a later claim sets the same end
    await daily.start(GAME, "bob", Races(0))
    assert expected - 3600_000 - 5_000 < await r.pttl(keys.attempts(GAME, DAY)) <= expected - 3600_000
    assert await daily.attempt(GAME, "ada", DAY) == att.race


# --- one attempt ----------------------------------------------------------------------


async def test_concurrent_starts_get_exactly_one_attempt(daily):
    races = Races(0.05)
    atts = await asyncio.gather(*(daily.start(GAME, "ada", races) for _ in range(40)))
    assert len(races.calls) == 1
    assert {a.race for a in atts} == {"r1-ada"}
    assert sum(not a.resumed for a in atts) == 1
    # Across processes too: other Daily instances on the same Redis.
    others = [Daily(daily.redis, clock=daily.clock) for _ in range(5)]
    more = await asyncio.gather(*(d.start(GAME, "bob", races) for d in others for _ in range(5)))
    assert len(races.calls) == 2 and {a.race for a in more} == {"r2-bob"}


async def test_reconnect_resumes_and_a_second_attempt_is_refused(daily):
    races = Races(0)
    first = await daily.start(GAME, "ada", races)
    again = await daily.start(GAME, "ada", races)
    assert again.race == first.race and again.resumed and len(races.calls) == 1
    await daily.record(GAME, DAY, "ada", "Ada", first.race, result(30, at=5), [], T0)
    with pytest.raises(DailyError) as e:
        await daily.start(GAME, "ada", races)
    assert e.value.code == "daily-done" and e.value.extra["entry"]["home"] == 30
    # Another game is another attempt.
    other = await daily.start("fours-up", "ada", races)
    assert not other.resumed


async def test_a_failed_create_releases_the_claim(daily):
    async def broken(deal, player, limit):
        raise RuntimeError("store down")

    with pytest.raises(RuntimeError):
        await daily.start(GAME, "ada", broken)
    assert (await daily.start(GAME, "ada", Races(0))).race == "r1-ada"


async def test_a_stale_claim_is_taken_over(daily, clock, r):
    # A process claimed the attempt and died before creating the race.
    await r.hset(keys.attempts(GAME, DAY), "ada", f"pending:dead:{clock.now}")
    daily.busy_wait_ms = 100
    with pytest.raises(DailyError) as e:
        await daily.start(GAME, "ada", Races(0))
    assert e.value.code == "daily-busy"
    clock.now += daily.pending_stale_ms + 1
    assert (await daily.start(GAME, "ada", Races(0))).race == "r1-ada"


async def test_only_the_bound_race_is_recorded(daily):
    att = await daily.start(GAME, "ada", Races(0))
    assert await daily.record(GAME, DAY, "ada", "Ada", "not-" + att.race, result(5), [], T0) is None
    assert await daily.record(GAME, DAY, "eve", "Eve", att.race, result(5), [], T0) is None
    first = await daily.record(GAME, DAY, "ada", "Ada", att.race, result(5, at=9), [], T0)
    # Reported twice (two processes saw the end): one entry, same answer.
    dup = await daily.record(GAME, DAY, "ada", "Ada", att.race, result(99, at=1), [], T0)
    assert first["rank"] == dup["rank"] == 1 and dup["home"] == 5
    assert (await daily.leaderboard(GAME))["count"] == 1


# --- leaderboard ----------------------------------------------------------------------


async def test_leaderboard_order_ties_top_around_me(daily):
    races = Races(0)
    rows = {
        "p-slowwin": result(156, t=90_000, moves=500),
        "p-fastwin": result(156, t=60_000, moves=800),
        "p-tiewin-b": result(156, t=70_000, moves=1),
        "p-tiewin-a": result(156, t=70_000, moves=999),  # same time: tie, listed by id
        "p-100-early": result(100, at=1_000, moves=40),
        "p-100-late": result(100, at=2_000, moves=1),
        "p-100-early-more": result(100, at=1_000, moves=41),  # same count and moment: more moves first
        "p-z-same": result(50, at=7, moves=7),
        "p-a-same": result(50, at=7, moves=7),  # identical: tie, listed by id
        "p-zero": result(0, at=0, moves=0),
    }
    for p, res in rows.items():
        await play_attempt(daily, races, p, res)
    expected = [
        "p-fastwin",
        "p-tiewin-a",
        "p-tiewin-b",
        "p-slowwin",
        "p-100-early-more",
        "p-100-early",
        "p-100-late",
        "p-a-same",
        "p-z-same",
        "p-zero",
    ]
    expected_ranks = [1, 2, 2, 4, 5, 6, 7, 8, 8, 10]
    board = await daily.leaderboard(GAME, top=100, player="p-100-late", around=2)
    assert board["count"] == 10 and board["status"] == "open"
    assert [e["player"] for e in board["top"]] == expected
    assert [e["rank"] for e in board["top"]] == expected_ranks
    assert board["me"]["player"] == "p-100-late" and board["me"]["rank"] == 7
    assert [e["player"] for e in board["around"]] == expected[4:9]
    small = await daily.leaderboard(GAME, top=3, player="p-fastwin", around=1)
    assert [e["player"] for e in small["top"]] == expected[:3]
    assert [e["player"] for e in small["around"]] == expected[:2]
    none = await daily.leaderboard(GAME, player="nobody")
    assert none["me"] is None and none["around"] == []
    entry = await daily.entry(GAME, DAY, "p-z-same")
    assert entry["rank"] == 8 and entry["name"] == "p-z-same"


async def test_live_updates_are_published(daily, r):
    pubsub = r.pubsub()
    await pubsub.subscribe(daily.channel(GAME, DAY))
    await pubsub.get_message(timeout=1)  # the subscribe confirmation
    await play_attempt(daily, Races(0), "ada", result(40, at=3))

    async def published() -> dict | None:
        msg = await pubsub.get_message(timeout=0.1)
        return msg if msg and msg["type"] == "message" else None

    msg = await until(published, interval=0, what="the live update")
    update = json.loads(msg["data"])
    assert update["entry"]["player"] == "ada" and update["entry"]["rank"] == 1
    assert update["count"] == 1 and update["date"] == DAY
    await pubsub.aclose()


# --- history --------------------------------------------------------------------------


async def test_history_over_several_days(daily, clock):
    races = Races(0)
    plan = {0: True, 1: False, 2: True, 4: True, 5: True}  # day offset → won
    for off, won in plan.items():
        clock.now = T0 + off * DAY_MS + 3600_000
        res = result(156, t=100_000) if won else result(40, at=9)
        att = await daily.start(GAME, "ada", races)
        await daily.record(GAME, att.date, "ada", "Ada", att.race, res, [], clock.now)
        # someone better on each day, so ranks are 2
        att = await daily.start(GAME, "bob", races)
        await daily.record(GAME, att.date, "bob", "Bob", att.race, result(156, t=50_000), [], clock.now)
    h = await daily.history("ada", GAME)
    assert (h["played"], h["wins"]) == (5, 4)
    assert (h["streak"], h["best_streak"]) == (2, 3)
    assert (h["win_streak"], h["best_win_streak"]) == (2, 2)
    assert [d["date"] for d in h["days"]] == [
        "2025-03-19",
        "2025-03-18",
        "2025-03-16",
        "2025-03-15",
        "2025-03-14",
    ]
    assert all(d["rank"] == 2 and d["count"] == 2 for d in h["days"])
    clock.now += 2 * DAY_MS
    h = await daily.history("ada", GAME)
    assert h["streak"] == 0 and h["best_streak"] == 3
    assert await daily.redis.ttl(keys.history("ada", GAME)) == -1


# --- secrecy --------------------------------------------------------------------------


async def test_daily_races_stay_secret_until_the_close(daily, clock):
    att = await daily.start(GAME, "ada", Races(0))
    assert await daily.race_daily(att.race) == (GAME, DAY, "ada")
    with pytest.raises(DailyError) as e:
        await daily.check_public(att.race)
    assert e.value.code == "daily-open"
    await daily.check_public("some-ordinary-race")  # not a daily: no objection
    await daily.record(GAME, DAY, "ada", "Ada", att.race, result(10, at=1), [["draw", T0 + 1]], T0)
    with pytest.raises(DailyError) as e:
        await daily.replay(GAME, DAY)
    assert e.value.code == "daily-open"
    clock.now = T0 + DAY_MS
    await daily.check_public(att.race)  # closed: watchable, replayable
    with pytest.raises(DailyError):  # still within the finalization grace
        await daily.replay(GAME, DAY)
    clock.now += daily.finalize_grace_ms
    doc = await daily.replay(GAME, DAY, "ada")
    assert doc["players"][0]["moves"] == [["draw", T0 + 1]]


async def test_only_the_top_replays_are_published(r, clock):
    daily = Daily(r, clock=clock, replay_top=2)
    races = Races(0)
    for i, p in enumerate(["a", "b", "c"]):
        await play_attempt(daily, races, p, result(50 - i, at=1), moves=[["draw", T0 + i]])
    clock.now = T0 + DAY_MS + daily.finalize_grace_ms
    doc = await daily.replay(GAME, DAY)
    assert [e["player"] for e in doc["ranking"]] == ["a", "b"]
    assert [p["player"] for p in doc["players"]] == ["a", "b"]
    assert doc["commitment"] == hashlib.sha256(doc["seed"].encode()).hexdigest()
    with pytest.raises(DailyError) as e:
        await daily.replay(GAME, DAY, "c")
    assert e.value.code == "no-replay"
    # The temporary move logs go away a week later; the published ones stay.
    assert 0 < await r.pttl(keys.moves(GAME, DAY)) <= daily.keep_ms + DAY_MS
    assert await r.pttl(keys.replays(GAME, DAY)) == -1


async def test_a_day_nobody_played_has_no_replay_whether_dealt_or_not(r, clock):
    """Not an empty document, which `solrace verify` would confirm as if it checked something."""
    daily = Daily(r, clock=clock)
    await daily.deal(GAME, DAY)  # looked at while open, never played
    clock.now = T0 + DAY_MS + daily.finalize_grace_ms
    for date in (DAY, "2025-01-01"):  # dealt, and never dealt (both within the history window)
        with pytest.raises(DailyError) as e:
            await daily.replay(GAME, date)
        assert e.value.code == "no-replay" and str(e.value) == "nobody played this day: it has no replay"


# --- the history window and the per-process caches --------------------------------


async def test_days_older_than_the_history_window_are_refused_and_write_nothing(r, clock):
    """Any past date used to deal and finalize a day, leaving permanent keys (a memory DoS)."""
    daily = Daily(r, clock=clock, certified_games=frozenset({GAME}))
    today = days.day_number(DAY)
    first = days.date_of_day(today - DAILY_HISTORY_DAYS)
    too_old = days.date_of_day(today - DAILY_HISTORY_DAYS - 1)
    for date in (too_old, "1999-01-01", "0001-01-01"):
        calls = {
            "info": lambda d=date: daily.info(GAME, d),
            "deal": lambda d=date: daily.deal(GAME, d),
            "leaderboard": lambda d=date: daily.leaderboard(GAME, d, "ada"),
            "replay": lambda d=date: daily.replay(GAME, d),
            "finalize": lambda d=date: daily.finalize(GAME, d),
            "attempt": lambda d=date: daily.attempt(GAME, "ada", d),
        }
        for name, call in calls.items():
            with pytest.raises(DailyError) as e:
                await call()
            assert e.value.code == "bad-date", (name, date)
            assert f"the first day served is {first}" in e.value.message
    assert [k async for k in r.scan_iter()] == []
    assert not daily._picks and not daily._meta_written
    # The first day of the window is served as before: closed, final, its seed revealed.
    info = await daily.info(GAME, first)
    assert info["date"] == first and info["status"] == "closed" and info["final"] and info["seed"]
    assert await r.exists(keys.meta(GAME, first), keys.pick(GAME, first)) == 2


async def test_a_recorded_day_stays_served_past_the_history_window(r, clock):
    """The window stops new records of old days, not the reading of the records kept."""
    daily = Daily(r, clock=clock, history_days=30)
    await play_attempt(daily, Races(0), "ada", moves=[["draw", T0 + 1]])
    seed = (await daily.deal(GAME)).seed
    clock.now = T0 + 40 * DAY_MS  # DAY is now 40 days old, beyond the 30 days served
    board = await daily.leaderboard(GAME, DAY, "ada")
    assert board["final"] and board["count"] == 1 and board["me"]["player"] == "ada"
    doc = await daily.replay(GAME, DAY)
    assert doc["seed"] == seed and [p["player"] for p in doc["players"]] == ["ada"]
    assert await daily.attempt(GAME, "ada", DAY) is not None
    # ...while a day as old with no record is refused, and gets none.
    unrecorded = days.date_of_day(days.day_number(DAY) - 1)
    with pytest.raises(DailyError) as e:
        await daily.info(GAME, unrecorded)
    assert e.value.code == "bad-date"
    assert not [k async for k in r.scan_iter(match=f"*{unrecorded}*")]


async def test_the_per_process_caches_of_the_deal_are_bounded(r, clock):
    daily = Daily(r, clock=clock, certified_games=frozenset({GAME}))
    await daily.store_certified(GAME, DAY, 3, ["draw"])
    first = await daily.deal(GAME, DAY)
    assert first.certified and first.proof == ("draw",)
    today = days.day_number(DAY)
    for back in range(1, CACHED_DAYS + 20):
        await daily.deal(GAME, days.date_of_day(today - back))
    assert len(daily._picks) == CACHED_DAYS and len(daily._meta_written) == CACHED_DAYS
    assert (GAME, DAY) not in daily._picks  # the least recently used went first
    # A day out of the cache deals the same: its choice is pinned in Redis, not here.
    await daily.store_certified(GAME, DAY, 5, ["draw", "draw"])
    again = await daily.deal(GAME, DAY)
    assert (again.seed, again.proof) == (first.seed, first.proof)
    assert len(daily._picks) == CACHED_DAYS and (GAME, DAY) in daily._picks
