"""server/core/races.py alone: lobby transitions, start and end, ranking with ties. No I/O."""

from __future__ import annotations

import pytest
from lobby_race import lobby_race
from must import must

from protocol import ranking, rules
from server.core import races as R
from server.core.races import RaceError


def lobby(seats: int = 3) -> R.Race:
    return R.new_race(
        race="r1",
        game="fours-up",
        total=104,
        seats=seats,
        time_limit_s=60,
        private=False,
        host="p1",
        host_name="ada",
        now=1000,
        seed="s",
    )


def quick_race() -> R.Race:
    return R.new_quick_race(
        race="r2",
        game="fours-up",
        total=104,
        time_limit_s=60,
        players=[("p1", "a"), ("p2", "b")],
        now=0,
        countdown_ms=100,
        seed="s2",
    )


def test_a_new_race_commits_to_its_seed_under_this_servers_versions():
    for r in (lobby(), quick_race()):
        assert r.commitment == rules.seed_commitment(r.seed)
        assert (r.rules_version, r.deal_version) == (rules.RULES_VERSION, rules.DEAL_VERSION)


def code(fn, *args) -> str:
    with pytest.raises(RaceError) as e:
        fn(*args)
    return e.value.code


def test_join_leave_and_host_handover():
    r = lobby(2)
    r2 = R.join(r, "p2", "bob")
    assert [p.player for p in r2.players] == ["p1", "p2"] and [p.player for p in r.players] == ["p1"]
    assert R.join(r2, "p2", "bob") is r2  # already seated: unchanged
    assert code(R.join, r2, "p3", "cyd") == "race-full"
    r3 = R.leave(r2, "p1")
    assert r3.host == "p2" and [p.player for p in r3.players] == ["p2"]
    assert code(R.leave, r3, "p9") == "not-in-race"


def test_ready_starts_the_countdown_when_full():
    r = R.join(lobby(2), "p2", "bob")
    r = R.set_ready(r, "p1", True, now=2000, countdown_ms=3000)
    assert r.status == R.LOBBY and r.players[0].status == R.READY
    r = R.set_ready(r, "p2", True, now=2500, countdown_ms=3000)
    assert r.status == R.COUNTDOWN and r.starts_at == 5500 and r.deadline == 5500 + 60_000
    assert code(R.join, r, "p3", "cyd") == "race-started"
    assert code(R.set_ready, r, "p1", False, 2600, 3000) == "race-started"
    assert code(R.leave, r, "p1") == "race-started"
    assert R.due(r, 5499) is None and R.due(r, 5500) == "start"


def test_host_start_with_the_players_present():
    r = R.join(lobby(4), "p2", "bob")
    assert code(R.host_start, r, "p2", 0, 100) == "not-host"
    assert code(R.host_start, r, "p1", 0, 100) == "not-ready"
    assert code(R.host_start, r, "p9", 0, 100) == "not-in-race"
    r = R.set_ready(R.set_ready(r, "p1", True, 0, 100), "p2", True, 0, 100)
    assert r.status == R.LOBBY  # 2 of 4 seats
    r = R.host_start(r, "p1", 10, 100)
    assert r.status == R.COUNTDOWN and r.seats == 2 and r.starts_at == 110


def test_a_rated_race_starts_with_two_players_at_least():
    r = lobby(3)
    r.rated = True
    r = R.set_ready(r, "p1", True, 0, 100)
    assert code(R.host_start, r, "p9", 0, 100) == "not-in-race"  # a stranger learns nothing more
    assert code(R.host_start, r, "p1", 0, 100) == "not-rateable"
    r = R.set_ready(R.join(r, "p2", "bob"), "p2", True, 0, 100)
    assert R.host_start(r, "p1", 10, 100).status == R.COUNTDOWN
    r.rated = False
    assert R.host_start(R.leave(r, "p2"), "p1", 10, 100).status == R.COUNTDOWN  # a casual race of one


def test_quick_race_counts_down_at_once():
    r = quick_race()
    assert r.status == R.COUNTDOWN and r.host == "" and r.quick and all(p.ready for p in r.players)


def _running(n_players: int = 3, home0: int = 8) -> R.Race:
    r = lobby(n_players)
    for i in range(2, n_players + 1):
        r = R.join(r, f"p{i}", f"n{i}")
    for p in r.players:
        r = R.set_ready(r, p.player, True, 0, 1000)
    r = R.begin(r, home0)
    assert r.status == R.RUNNING and all(p.status == R.PLAYING and p.home == home0 for p in r.players)
    return r


def test_due_end_when_everyone_is_done_or_at_the_deadline():
    r = _running(2)
    assert R.due(r, 1000) is None
    assert R.due(r, must(r.deadline)) == "end"
    r.players[0].status = R.WON
    assert R.due(r, 2000) is None
    r.players[1].status = R.DECLARED
    assert R.due(r, 2000) == "end"
    assert R.next_timer(r) == r.deadline


def test_end_marks_timeouts_and_ranks():
    r = _running(4)
    start, deadline = must(r.starts_at), must(r.deadline)
    a, b, c, d = r.players
    a.status, a.at, a.home, a.n = R.WON, start + 50_000, 104, 300
    b.status, b.at, b.home, b.n = R.WON, start + 40_000, 104, 350
    c.home, c.n = 60, 100  # still playing at the deadline
    d.status, d.at, d.home, d.n = R.DECLARED, start + 30_000, 60, 90
    logs = {"p3": [(start + 100, 9), (start + 20_000, 60)], "p4": [(start + 25_000, 60)]}
    out = R.end(r, deadline + 5, logs, initial_home=8)
    assert out.status == R.FINISHED and r.status == R.RUNNING  # a copy
    c2 = must(out.seat_of("p3"))
    assert c2.status == R.TIMEOUT and c2.at == deadline
    ranking = must(out.ranking)
    assert [e["player"] for e in ranking] == ["p2", "p1", "p3", "p4"]
    assert [e["rank"] for e in ranking] == [1, 2, 3, 4]
    assert ranking[0]["time_ms"] == 40_000 and ranking[2]["time_ms"] is None
    assert ranking[3]["time_ms"] == 30_000  # declared: time to the declaration
    assert ranking[2]["home_at_ms"] == 20_000 and ranking[3]["home_at_ms"] == 25_000


def test_ranking_ties_share_a_rank():
    r = _running(4, home0=0)
    for p in r.players:
        p.status = R.TIMEOUT
    a, b, c, d = r.players
    a.home, a.n = 10, 50
    b.home, b.n = 10, 50
    c.home, c.n = 10, 60  # same count at the same moment, more moves: ahead
    d.home, d.n = 3, 5
    t = must(r.starts_at)
    logs = {"p1": [(t + 500, 10)], "p2": [(t + 500, 10)], "p3": [(t + 500, 10)], "p4": [(t + 100, 3)]}
    ranking = R.rank(r, logs)
    assert [(e["player"], e["rank"]) for e in ranking] == [("p3", 1), ("p1", 2), ("p2", 2), ("p4", 4)]
    assert [e["last_move_ms"] for e in ranking] == [500, 500, 500, 100]


def test_home_at_is_the_earliest_time_of_the_final_count():
    log = [(110, 9), (120, 10), (130, 9), (140, 10)]
    assert ranking.home_at(100, 10, log, 8) == 20
    assert ranking.home_at(100, 9, log, 8) == 10
    assert ranking.home_at(100, 8, log, 8) == 0


def test_snapshot_hides_the_seed_until_finished():
    r = _running(2)
    assert R.snapshot(r)["seed"] is None and R.snapshot(r)["ranking"] is None
    done = R.end(r, must(r.deadline), {})
    snap = R.snapshot(done)
    assert snap["seed"] == "s" and snap["ranking"] and snap["status"] == R.FINISHED
    assert code(R.end, done, 0, {}) == "race-not-running"
    assert code(R.begin, done) == "race-started"


def test_a_name_taken_in_the_race_gets_a_number():
    # Two bots of a level (or two guests called ada) are told apart on every board.
    r = lobby_race(seats=4)
    r = R.join(r, "bot-1", "Greedy bot")
    r = R.join(r, "bot-2", "Greedy bot")
    r = R.join(r, "p4", "ada")
    assert [p.name for p in r.players] == ["ada", "Greedy bot", "Greedy bot 2", "ada 2"]
    quick = R.new_quick_race(
        race="r2",
        game="fours-up",
        total=104,
        time_limit_s=60,
        players=[("p1", "ada"), ("p2", "ada"), ("p3", "ada")],
        now=0,
        countdown_ms=100,
        seed="s",
    )
    assert [(p.player, p.name) for p in quick.players] == [("p1", "ada"), ("p2", "ada 2"), ("p3", "ada 3")]
