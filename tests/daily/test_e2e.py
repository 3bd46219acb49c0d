"""The daily challenge end to end: a real server, the client library, a real Redis."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from race_clock import end_clock_later
from waiting import DEADLINE, until, wait_for_next_day

from client.cli import verify as v
from client.library import ServerError, connect
from client.tui.replay_model import build_replay, end_ms
from protocol import messages as m
from server.daily import days
from server.daily import handlers as daily_handlers
from server.daily import keys as dkeys

GAME = "racing-aces"

# They start daily attempts on the real clock (tests/conftest.py: pytest_runtest_protocol).
pytestmark = pytest.mark.daily


def of_race(rid: str) -> Callable[[Any], bool]:
    """Matches an event of race `rid`."""
    return lambda ev: ev.race == rid


async def error_of(coro) -> str:
    with pytest.raises(ServerError) as e:
        await coro
    return e.value.code


def clock_shifted(app) -> tuple[dict[str, int], Callable[[], int]]:
    """The daily's clock, from now on ``shift["ms"]`` ahead of its real one (``base``), to move
    a test past the day's close: (shift, base)."""
    shift, base = {"ms": 0}, app.daily.clock
    app.daily.clock = lambda: base() + shift["ms"]
    return shift, base


async def play_a_little(c, rid: str, moves: int = 25) -> None:
    """Greedy play from the legal moves the server sends back (the seed is sealed)."""
    ack = await c.move(rid, "draw", view=True)
    for _ in range(moves):
        if ack.won:
            return
        legal = ack.legal or []
        home = [x for x in legal if ">f" in x and not x.startswith("f")]
        pick = (home or [x for x in legal if x == "draw"] or legal or [None])[0]
        if pick is None:
            return
        ack = await c.move(rid, pick, view=True)


async def test_a_daily_over_the_wire(server):
    app = server
    shift, base = clock_shifted(app)
    url = app.ws_url

    async with connect(url, name="ada") as ada, connect(url, name="bob") as bob:
        info = await ada.request(m.Daily(game=GAME))
        date = info.date
        assert info.status == "open" and info.seed is None and info.you is None
        assert info.closes == days.closes_at(date) and info.time_limit_s == 600

        # Bob watches the board live.
        board = await bob.request(m.Leaderboard(game=GAME, watch=True))
        assert board.count == 0 and board.me is None

        # Ada starts from two connections at once: one attempt, one race.
        async with connect(url, token=ada.token) as ada2:
            snaps = await asyncio.gather(
                ada.request(m.DailyStart(game=GAME)), ada2.request(m.DailyStart(game=GAME))
            )
            assert snaps[0].race == snaps[1].race
            rid = snaps[0].race
            snap = snaps[0]
            assert snap.private and snap.seats == 1 and snap.seed is None
            assert snap.daily and snap.arena is None  # a second device knows it for a daily attempt
            assert snap.commitment == info.commitment
            # A reconnect resumes the same attempt.
            again = await ada2.request(m.DailyStart(game=GAME))
            assert again.race == rid

        await ada.wait_for("start", lambda ev: ev.race == rid)
        mine = await ada.request(m.Daily(game=GAME))
        assert mine.you.race == rid and mine.you.status == "playing"

        # Nobody watches or replays a daily race while the day is open.
        assert await error_of(bob.spectate(rid)) == "private-race"
        await play_a_little(ada, rid)
        await ada.finish(rid)
        end = await ada.wait_for("end", lambda ev: ev.race == rid)
        assert end.seed is None  # sealed: the daily reveals it after the close
        assert await error_of(bob.replay(rid)) == "daily-open"
        assert await error_of(ada.replay(rid)) == "daily-open"

        # The result reaches the board, and Bob's live view.
        update = await bob.wait_for("leaderboard_update", timeout=DEADLINE)
        assert update.entry.player == ada.player and update.entry.rank == 1 and update.count == 1
        mine = await ada.request(m.Leaderboard(game=GAME, top=5, around=2))
        assert mine.me.player == ada.player and mine.me.race == rid and mine.status == "open"
        assert [e.player for e in mine.around] == [ada.player]
        row = end.ranking[0]
        assert (mine.me.home, mine.me.moves, mine.me.status) == (row.home, row.moves, row.status)

        # One ranked attempt: a second one is refused.
        assert await error_of(ada.request(m.DailyStart(game=GAME))) == "daily-done"
        done = await ada.request(m.Daily(game=GAME))
        assert done.you.status == "done" and done.you.entry.rank == 1

        hist = await ada.request(m.History(game=GAME))
        assert (hist.played, hist.streak) == (1, 1) and hist.days[0].race == rid
        assert await error_of(ada.request(m.DailyReplay(game=GAME, date=date))) == "daily-open"

        # Midnight, plus the finalization grace: the seed is out and matches.
        shift["ms"] = days.closes_at(date) - base() + app.daily.finalize_grace_ms
        closed = await bob.request(m.Daily(game=GAME, date=date))
        assert closed.status == "closed" and closed.final
        assert hashlib.sha256(closed.seed.encode()).hexdigest() == info.commitment
        replay = await bob.replay(rid)  # the race's replay is public now
        assert replay.seed == closed.seed
        final = await bob.request(m.Leaderboard(game=GAME, date=date))
        assert final.final and final.top[0].player == ada.player

    # Anyone can fetch the published replays and check them.
    doc = await v.fetch(url, daily=GAME, date=date)
    assert doc["seed"] == closed.seed and doc["players"][0]["race"] == rid
    report = v.verify(doc, commitment=info.commitment)
    assert report.confirmed, report.text()
    race_doc = await v.fetch(url, race=rid)
    assert v.verify(race_doc, commitment=info.commitment).confirmed


async def test_daily_errors_over_the_wire(server):
    async with connect(server.ws_url, name="eve") as eve:
        assert await error_of(eve.request(m.Daily(game="chess"))) == "unknown-game"
        assert await error_of(eve.request(m.Daily(game=GAME, date="2999-01-01"))) == "daily-not-open"
        with pytest.raises(ServerError) as e:
            await eve.request(m.Daily(game=GAME, date="2025-02-30"))
        assert e.value.code == "bad-message" and e.value.field == "date"
        today = (await eve.request(m.Daily(game=GAME))).date
        past = days.date_of_day(days.day_number(today) - 30)  # within the history window
        assert (
            await error_of(eve.request(m.DailyReplay(game=GAME, date=past, player="nobody"))) == "no-replay"
        )
        assert await error_of(eve.request(m.DailyReplay(game=GAME, date=past))) == "no-replay"
        assert await error_of(eve.request(m.DailyReplay(game=GAME, date=today))) == "daily-open"
        # A day older than the history window, never recorded, is not served at all.
        for request in (m.Daily, m.Leaderboard, m.DailyReplay):
            with pytest.raises(ServerError) as e:
                await eve.request(request(game=GAME, date="1999-01-01"))
            assert e.value.code == "bad-message" and e.value.field == "date"
    # ...and a refusal writes nothing: no record of a day nobody played, no pick of a deal
    r = server.daily.redis
    assert not await r.exists(dkeys.meta(GAME, "1999-01-01"), dkeys.meta(GAME, past))
    assert not [k async for k in r.scan_iter(match="*1999-01-01*")]


async def test_an_unrecorded_end_is_repaired(server):
    """The process that ended an attempt died before recording it: the next
    `daily` or `daily_start` of the player records it from the race."""
    hooks = list(server.service.end_hooks)
    server.service.end_hooks.clear()  # the end is committed, the record is lost
    async with connect(server.ws_url, name="ada") as ada:
        snap = await ada.request(m.DailyStart(game=GAME))
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.move(snap.race, "draw")
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        assert (await ada.request(m.Leaderboard(game=GAME))).count == 0
        server.service.end_hooks.extend(hooks)
        assert await error_of(ada.request(m.DailyStart(game=GAME))) == "daily-done"
        board = await ada.request(m.Leaderboard(game=GAME))
        assert board.count == 1 and board.me.moves == 1


async def test_an_unrecorded_end_is_recorded_before_the_day_is_final(server):
    """An attempt whose end was never recorded (its end hook failed, its process died) and
    whose player never asks again: the day's finalization records it first (a record is
    refused once the day is final: the result was lost for good)."""
    shift, base = clock_shifted(server)
    hooks = list(server.service.end_hooks)
    server.service.end_hooks.clear()  # the end is committed, the record is lost
    async with connect(server.ws_url, name="ada") as ada, connect(server.ws_url, name="bob") as bob:
        snap = await ada.request(m.DailyStart(game=GAME))
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.move(snap.race, "draw")
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        server.service.end_hooks.extend(hooks)
        info = await bob.request(m.Daily(game=GAME))
        assert info.entries == 0
        shift["ms"] = days.closes_at(info.date) - base() + server.daily.finalize_grace_ms
        final = await bob.request(m.Leaderboard(game=GAME, date=info.date))
        assert final.final and [e.player for e in final.top] == [ada.player]


async def test_an_attempts_day_mark_lives_as_long_as_its_race(make_server):
    """The mark naming an attempt's day lives as long as the race's own record: without it
    the race is refused to everyone, its own player's replay too (it lived a week, the race
    30 days)."""
    from server.daily import keys as daily_keys
    from server.storage.keys import race_key

    app = await make_server(finished_ttl_s=30 * 86_400)
    async with connect(app.ws_url, name="ada") as ada:
        snap = await ada.request(m.DailyStart(game=GAME))
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        redis = app.store.redis
        mark, record = await redis.pttl(daily_keys.race(snap.race)), await redis.pttl(race_key(snap.race))
        assert record > 29 * 86_400_000 and mark >= record, (mark, record)


async def test_a_daily_ranks_playing_above_doing_nothing(server):
    """Fours Up deals its eight 4s home: a finish at once (0 moves) and a few
    moves that bring no card home leave the same cards home; the player who
    played ranks first, the board shows when each stopped, and verify agrees."""
    app = server
    shift, base = clock_shifted(app)
    url = app.ws_url
    game = "fours-up"
    async with connect(url, name="idle") as idle, connect(url, name="busy") as busy:
        info = await idle.request(m.Daily(game=game))
        for c in (idle, busy):
            snap = await c.request(m.DailyStart(game=game))
            await c.wait_for("start", of_race(snap.race))
            if c is busy:
                for _ in range(3):
                    ack = await c.move(snap.race, "draw")
                    assert ack.home == 8  # a draw brings no card home
            await c.finish(snap.race)
            await c.wait_for("end", of_race(snap.race))

        async def both_recorded() -> m.LeaderboardData | None:
            page = await idle.request(m.Leaderboard(game=game, top=10))
            return page if page.count == 2 else None

        board = await until(both_recorded, interval=0.05, what="both attempts on the board")
        assert [(e.player, e.rank) for e in board.top] == [(busy.player, 1), (idle.player, 2)]
        top_busy, top_idle = board.top
        assert (top_busy.home, top_busy.moves, top_idle.home, top_idle.moves) == (8, 3, 8, 0)
        assert top_busy.last_move_ms is not None and top_busy.last_move_ms <= (top_busy.time_ms or 0)
        assert top_idle.last_move_ms is None and top_idle.time_ms is not None
        hist = await busy.request(m.History(game=game))
        assert hist.days[0].last_move_ms == top_busy.last_move_ms

        shift["ms"] = days.closes_at(info.date) - base() + app.daily.finalize_grace_ms
        final = await idle.request(m.Leaderboard(game=game, date=info.date))
        assert final.final and [e.player for e in final.top] == [busy.player, idle.player]

    doc = await v.fetch(url, daily=game, date=info.date)
    assert [(e["player"], e.get("last_move_ms")) for e in doc["ranking"]] == [
        (busy.player, top_busy.last_move_ms),
        (idle.player, None),
    ]
    report = v.verify(doc, commitment=info.commitment)
    assert report.confirmed, report.text()
    # a published ranking that puts the 0-move finish first is refuted
    doc["ranking"][0]["rank"], doc["ranking"][1]["rank"] = 2, 1
    assert not v.verify(doc, commitment=info.commitment).confirmed


def test_a_daily_test_never_straddles_midnight() -> None:
    noon, close = days.opens_at("2026-12-01") / 1000 + 43_200, days.opens_at("2026-12-02") / 1000
    assert wait_for_next_day(noon) == 0.0
    assert wait_for_next_day(close - 301) == 0.0
    assert wait_for_next_day(close - 30) == 31.0  # the day's last 35 s refuse daily_start
    assert wait_for_next_day(close) == 0.0


async def test_an_attempt_whose_mark_failed_is_hidden_for_good_and_not_an_attempt(server):
    """A Redis fault between the attempt race's creation and its daily mark: the start fails
    (`internal`) and gives its claim back (the next start is a fresh attempt at once, not
    after the claim went stale), and the unmarked race, sealed, never shows its seed."""
    app = server
    rc = app.daily.redis
    real_set = rc.set
    failed: list[str] = []

    async def set_failing_once(name, *args, **kw):
        key = name.decode() if isinstance(name, bytes) else name
        if key.startswith("{dailyrace:") and not failed:
            failed.append(key)
            raise ConnectionError("a Redis blip")
        return await real_set(name, *args, **kw)

    rc.set = set_failing_once
    made: list[str] = []
    lobby = app.service.lobby
    real = lobby.create_solo

    async def noting(*args, **kw):
        race = await real(*args, **kw)
        made.append(race.race)
        return race

    lobby.create_solo = noting
    async with connect(app.ws_url, name="mal") as mal:
        assert await error_of(mal.request(m.DailyStart(game=GAME))) == "internal"
        attempt = await mal.request(m.DailyStart(game=GAME), timeout=5)  # the claim was given back
        orphan = made[0]
        assert orphan != attempt.race and made[1:] == [attempt.race]
        await never_played(app, mal, orphan)
        assert await error_of(mal.replay(orphan)) == "private-race"
        assert await error_of(mal.request(m.Analysis(race=orphan))) == "private-race"
        await finished(app, mal, attempt.race)  # the attempt itself is played as ever


async def test_an_orphan_of_a_stale_claim_keeps_its_mark(server):
    """A start slower than the claim's staleness: another start took the claim over and made
    the attempt. The slow one's race is an orphan; it stays hidden with its seed until the
    close like an attempt (its mark used to be deleted, and its replay showed the seed), and
    it never runs (it used to: a second copy of the day's deal to learn it on)."""
    app = server
    daily = app.daily
    daily.pending_stale_ms = 300
    gate = asyncio.Event()
    made: list[str] = []

    async with connect(app.ws_url, name="sly") as sly:
        lobby = app.service.lobby
        real = lobby.create_solo

        async def first_is_slow(*args, **kw):
            race = await real(*args, **kw)
            made.append(race.race)
            if len(made) == 1:
                await gate.wait()
            return race

        lobby.create_solo = first_is_slow
        slow = asyncio.create_task(sly.request(m.DailyStart(game=GAME), timeout=DEADLINE))
        await until(lambda: made, what="the slow start's race")
        async with connect(app.ws_url, token=sly.token) as other:
            attempt = await until(lambda: _start(other), what="a start taking the stale claim over")
        gate.set()
        assert (await slow).race == attempt.race  # the slow one answers with the attempt
        orphan = made[0]
        assert orphan != attempt.race
        await never_played(app, sly, orphan)
        assert await app.daily.race_daily(orphan) is not None  # its mark is kept
        # refused, its seed with it: private now that its player has no seat in it
        assert await error_of(sly.replay(orphan)) == "private-race"
        await finished(app, sly, attempt.race)


async def _start(c):
    try:
        return await c.request(m.DailyStart(game=GAME), timeout=5)
    except ServerError as e:
        if e.code == "daily-busy":
            return None
        raise


async def never_played(app, c, rid: str) -> None:
    """The orphan `rid` of `c`'s daily start was discarded: no seat of `c`'s, no player in
    it, never counted down, and `c` cannot ready, start or leave it."""
    _now, race = await app.service.store.load_race(rid)
    assert race is not None and race.sealed and race.status == "lobby", race
    assert race.players == []
    assert rid not in await app.service.store.player_races(c.player)
    for msg in (m.Ready(race=rid), m.Start(race=rid), m.Leave(race=rid)):
        assert await error_of(c.request(msg)) in ("private-race", "not-in-race")


async def finished(app, c, rid: str) -> None:
    """Declare `c` finished in the one-seat race `rid` once it runs, and wait for its end."""

    async def status() -> str:
        _now, race = await app.service.store.load_race(rid)
        return race.status if race is not None else ""

    await until(lambda: _is_in(status(), ("running", "finished")), what="the race running")
    if await status() == "running":
        await c.finish(rid)
    await until(lambda: _is_in(status(), ("finished",)), what="the race ended")


async def _is_in(value, states) -> bool:
    return await value in states


async def test_a_certified_days_attempt_is_certified_and_its_replay_has_the_proof(make_server, r):
    """The day's deal was proved winnable: its attempt's race says so, keeps its proof sealed
    with its seed, and its replay after the close has both (it said certified: false and had
    no proof)."""
    app = await make_server(certified_games=GAME, daily_secret="s3cret")
    shift, base = clock_shifted(app)
    today = days.day_of(app.daily.clock())
    await r.set(dkeys.certified(GAME, today), json.dumps({"k": 2, "line": ["draw", "w>f0"]}))
    async with connect(app.ws_url, name="ada") as ada, connect(app.ws_url, name="bob") as bob:
        assert (await ada.request(m.Daily(game=GAME))).certified
        snap = await ada.request(m.DailyStart(game=GAME))
        assert snap.certified and snap.seed is None
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.finish(snap.race)
        end = await ada.wait_for("end", lambda ev: ev.race == snap.race)
        assert end.proof is None and end.par is None  # sealed until the close
        shift["ms"] = days.closes_at(today) + 61_000 - base()
        replay = await bob.replay(snap.race)
        assert replay.proof == ["draw", "w>f0"] and replay.par == 2 and replay.seed is not None


async def test_an_attempt_bound_but_not_started_is_started_by_the_next_start(server):
    """A start that bound its race and stopped before counting it down (a process gone, a
    Redis fault): the race waits in its lobby, and the player's next daily_start resumes and
    starts it (the player cannot ready a sealed race themselves)."""
    app = server
    lobby = app.service.lobby
    real = lobby.start_solo
    calls: list[str] = []

    async def failing_once(rid: str, pid: str) -> None:
        calls.append(rid)
        if len(calls) == 1:
            raise ConnectionError("a Redis blip")
        await real(rid, pid)

    lobby.start_solo = failing_once
    async with connect(app.ws_url, name="kay") as kay:
        assert await error_of(kay.request(m.DailyStart(game=GAME))) == "internal"
        (rid,) = calls
        _now, race = await app.service.store.load_race(rid)
        assert race is not None and race.status == "lobby" and race.players
        assert await error_of(kay.request(m.Ready(race=rid))) == "private-race"
        again = await kay.request(m.DailyStart(game=GAME), timeout=5)
        assert again.race == rid
        await finished(app, kay, rid)


async def test_a_guest_who_claims_an_account_is_shown_by_its_name(server):
    """The board keeps the name an attempt was raced under; a guest who claims an account
    afterwards (Ann) or while the attempt runs (Cy) shows by the account's name on the
    board, in `daily`, in the live update and in the day's published replays."""
    app = server
    shift, base = clock_shifted(app)
    url = app.ws_url
    game = "fours-up"  # its 4s start home: a finish at once is an entry
    async with connect(url, name="ann") as ann, connect(url, name="cy") as cy:
        info = await ann.request(m.Daily(game=game))
        snap = await ann.request(m.DailyStart(game=game))
        await ann.wait_for("start", lambda ev: ev.race == snap.race)
        await ann.finish(snap.race)
        await ann.wait_for("end", lambda ev: ev.race == snap.race)

        board = await cy.request(m.Leaderboard(game=game, watch=True))
        snap_cy = await cy.request(m.DailyStart(game=game))
        await cy.wait_for("start", lambda ev: ev.race == snap_cy.race)
        await cy.request(m.Claim(name="Cyrus", password="correct horse"))
        await cy.finish(snap_cy.race)
        update = await cy.wait_for(
            "leaderboard_update", lambda u: u.entry.player == cy.player, timeout=DEADLINE
        )
        assert update.entry.name == "Cyrus"  # recorded by the account's name

        assert board.count <= 1
        page = await ann.request(m.Leaderboard(game=game, top=10))
        assert {e.player: e.name for e in page.top} == {ann.player: "ann", cy.player: "Cyrus"}

        await ann.request(m.Claim(name="Annie", password="correct horse"))
        page = await ann.request(m.Leaderboard(game=game, top=10, around=1))
        assert {e.player: e.name for e in page.top} == {ann.player: "Annie", cy.player: "Cyrus"}
        assert page.me is not None and page.me.name == "Annie"
        assert {e.name for e in page.around} >= {"Annie"}
        mine = await ann.request(m.Daily(game=game))
        assert mine.you is not None and mine.you.entry is not None and mine.you.entry.name == "Annie"

        shift["ms"] = days.closes_at(info.date) - base() + app.daily.finalize_grace_ms
        replay = await ann.request(m.DailyReplay(game=game, date=info.date))
        assert {e.player: e.name for e in replay.ranking} == {ann.player: "Annie", cy.player: "Cyrus"}
        assert {p.player: p.name for p in replay.players} == {ann.player: "Annie", cy.player: "Cyrus"}


async def test_a_closed_day_nobody_asks_about_is_made_final_by_the_sweep(make_server, monkeypatch):
    """Finalizing waited for the first request about the closed day: a day nobody asked about
    kept its attempts for ever, and lost its replays once its moves expired, a week after the
    close (a soak audit). Every process's sweep makes it final past its grace."""
    monkeypatch.setattr(daily_handlers, "FINALIZE_SWEEP_S", 0.05)
    app = await make_server()
    shift, base = clock_shifted(app)
    game = "fours-up"
    async with connect(app.ws_url, name="ann") as ann:
        snap = await ann.request(m.DailyStart(game=game))
        await ann.wait_for("start", lambda ev: ev.race == snap.race)
        await ann.finish(snap.race)
        await ann.wait_for("end", lambda ev: ev.race == snap.race)
        date = (await ann.request(m.Daily(game=game))).date
    r = app.store.redis
    assert not await r.hexists(dkeys.meta(game, date), "finalized")
    shift["ms"] = days.closes_at(date) - base() + app.daily.finalize_grace_ms

    async def final() -> bool:
        return bool(await r.hexists(dkeys.meta(game, date), "finalized"))

    await until(final, what="the day made final with no request")
    assert await r.hexists(dkeys.replays(game, date), ann.player)  # its replay published
    assert await r.ttl(dkeys.attempts(game, date)) > 0


async def test_a_daily_replay_says_when_each_attempt_ended(server):
    """A timed-out attempt ends at its deadline in the day's replays (`ended_ms`): its ranking
    entry has no time for it, and each attempt is a race of its own start, so that no other
    moment of the document stands in for it (the terminal viewer showed "time up" at another
    player's declaration)."""
    app = server
    shift, base = clock_shifted(app)
    url = app.ws_url
    async with connect(url, name="ada") as ada, connect(url, name="bob") as bob:
        info = await ada.request(m.Daily(game=GAME))
        races = {}
        for c in (ada, bob):
            races[c] = (await c.request(m.DailyStart(game=GAME))).race
            await c.wait_for("start", of_race(races[c]))
            await play_a_little(c, races[c], moves=3)
        await ada.finish(races[ada])
        deadline = await end_clock_later(app.settings.redis, races[bob], 300)
        await bob.wait_for("end", of_race(races[bob]), timeout=DEADLINE)

        async def both_recorded() -> bool:
            return (await ada.request(m.Leaderboard(game=GAME))).count == 2

        await until(both_recorded, interval=0.05, what="both attempts on the board")
        shift["ms"] = days.closes_at(info.date) - base() + app.daily.finalize_grace_ms
        assert (await ada.request(m.Leaderboard(game=GAME, date=info.date))).final

    doc = await v.fetch(url, daily=GAME, date=info.date)
    ranked = {e["player"]: e for e in doc["ranking"]}
    ended = {p["player"]: (p["ended_ms"], p["starts_at"]) for p in doc["players"]}
    assert ranked[bob.player]["status"] == "timeout" and ranked[bob.player]["time_ms"] is None
    assert ended[ada.player][0] == ranked[ada.player]["time_ms"]
    assert ended[bob.player][0] == deadline - ended[bob.player][1]
    replay = build_replay(doc)
    assert end_ms(replay, replay.index_of("bob")) == deadline - ended[bob.player][1]
    assert v.verify(doc, commitment=info.commitment).confirmed
