"""Berserk in the race core alone: half the clock for one player, the others unchanged,
and the arena points of the race that follows (server/core/berserk.py, server/arena/scoring.py)."""

from __future__ import annotations

import pytest
from must import must, must_be

from protocol import messages as m
from server.arena.scoring import score_race
from server.core import races as R
from server.core import transitions
from server.core.berserk import berserk, time_out

LIMIT_S = 61  # odd: the half clock rounds up, 31 s


def counting_down() -> R.Race:
    return R.new_quick_race(
        race="a" + "1" * 16,
        game="fours-up",
        total=104,
        time_limit_s=LIMIT_S,
        players=[("p1", "ada"), ("p2", "bob")],
        now=1_000,
        countdown_ms=3_000,
        seed="0" * 32,
    )


def running_with_p1_berserk() -> R.Race:
    return transitions.start(berserk(counting_down(), "p1")).race


def test_berserk_before_the_start_only_and_once():
    race = counting_down()
    b = berserk(race, "p1")
    assert must(b.seat_of("p1")).berserk and not must(b.seat_of("p2")).berserk
    assert not must(race.seat_of("p1")).berserk  # a changed copy
    assert berserk(b, "p1") is b  # twice: unchanged
    with pytest.raises(R.RaceError) as e:
        berserk(race, "p9")
    assert e.value.code == m.ErrorCode.NOT_IN_RACE
    with pytest.raises(R.RaceError) as e:
        berserk(transitions.start(race).race, "p1")
    assert e.value.code == m.ErrorCode.RACE_STARTED


def test_only_the_berserk_player_has_half_the_clock():
    race = running_with_p1_berserk()
    starts = race.starts_at
    assert starts is not None and race.deadline == starts + LIMIT_S * 1000
    p1, p2 = race.players
    assert R.own_deadline(race, p1) == starts + 31_000
    assert R.own_deadline(race, p2) == race.deadline
    assert R.next_timer(race) == starts + 31_000  # the clock looks at the half clock first


def test_the_start_gives_the_move_script_the_berserk_deadline():
    t = transitions.start(berserk(counting_down(), "p1"))
    starts = t.race.starts_at
    assert starts is not None
    assert t.players["p1"]["dl"] == starts + 31_000 and "dl" not in t.players["p2"]
    assert t.timer == starts + 31_000
    assert [p.berserk for p in must_be(m.decode_server(t.events[0]), m.RaceSnapshot).players] == [True, False]


def test_the_half_clock_stops_the_berserk_player_and_the_race_goes_on():
    race = running_with_p1_berserk()
    own = R.own_deadline(race, race.players[0])
    assert own is not None
    assert R.due(race, own - 1) is None
    assert R.due(race, own) == "timeout"
    stopped = time_out(race, own + 40)
    assert (stopped.players[0].status, stopped.players[0].at) == ("timeout", own)
    assert stopped.players[1].status == "playing"
    assert R.next_timer(stopped) == race.deadline
    assert R.due(stopped, own + 50) is None


def test_the_timeout_transition_publishes_and_counts_the_players_left():
    race = running_with_p1_berserk()
    own = R.own_deadline(race, race.players[0])
    assert own is not None
    t = transitions.stop_out_of_time(race, own + 10)
    events = [must_be(m.decode_server(f), m.Progress) for f in t.events]
    assert [(e.player, e.status, e.at, e.ver) for e in events] == [("p1", "timeout", own, race.ver + 1)]
    assert t.race.ver == race.ver + 1 and t.live == 1 and t.timer == race.deadline
    assert t.players == {"p1": {"status": "timeout", "at": own}}


def test_the_race_ends_when_the_others_are_done_and_the_berserk_is_out_of_time():
    race = running_with_p1_berserk()
    starts, own = race.starts_at, R.own_deadline(race, race.players[0])
    assert starts is not None and own is not None
    race.players[1].status, race.players[1].at = "finished", starts + 2_000
    assert R.due(race, own - 1) is None  # p1 still has time
    assert R.due(race, own) == "end"
    ended = R.end(race, own + 300, {"p1": [(starts + 500, 9)], "p2": []}, initial_home=8)
    p1 = must(ended.seat_of("p1"))
    assert p1.status == "timeout" and p1.at == own


def test_a_berserk_win_scores_one_more_than_the_same_win_without():
    race = running_with_p1_berserk()
    starts, own = race.starts_at, R.own_deadline(race, race.players[0])
    assert starts is not None and own is not None
    race.players[1].status, race.players[1].at, race.players[1].n = "finished", starts + 2_000, 1
    race.players[0].n, race.players[0].home = 3, 10
    logs = {"p1": [(starts + 500, 9), (starts + 600, 10), (starts + 700, 10)], "p2": [(starts + 900, 8)]}
    ended = R.end(race, own, logs, initial_home=8)
    rows = ended.ranking or []
    assert [r["player"] for r in rows] == ["p1", "p2"]
    plain = {p.player: p.points for p in score_race(rows, {}, ())}
    with_berserk = {p.player: p.points for p in score_race(rows, {}, {"p1"})}
    assert with_berserk == {"p1": plain["p1"] + 1, "p2": plain["p2"]}
    # the loser's berserk earns nothing
    assert {p.player: p.points for p in score_race(rows, {}, {"p2"})} == plain
