"""server/core/rated.py alone: rated seats, the entrants of a finished rated race, when to
look at a pending one again; and a rated race's record round trip. No I/O."""

from __future__ import annotations

from lobby_race import lobby_race

from server.core import races as R
from server.core import rated
from server.storage.records import race_fields


def rated_lobby() -> R.Race:
    r = lobby_race(game="racing-aces", seats=3, time_limit_s=600)
    r.rated = True
    r.players[0].session = "s1"
    return r


def test_a_rated_seat_records_the_session_and_leaves_the_old_race_alone():
    r = rated_lobby()
    r2 = rated.seat(r, "p2", "bob", "s2")
    assert [(p.player, p.session) for p in r2.players] == [("p1", "s1"), ("p2", "s2")]
    assert len(r.players) == 1
    assert rated.seat(r2, "p2", "bob", "other") is r2  # already seated: unchanged


def test_entrants_follow_the_final_ranking_with_ties():
    r = rated.seat(rated.seat(rated_lobby(), "p2", "bob", "s2"), "p3", "cyd", "")
    r.ranking = [
        {"player": "p3", "rank": 1},
        {"player": "p1", "rank": 2},
        {"player": "p2", "rank": 2},
    ]
    assert rated.entrants(r) == [("p3", "seat:p3", 1), ("p1", "s1", 2), ("p2", "s2", 2)]
    r.ranking = None
    assert rated.entrants(r) == []


def test_check_at_waits_past_the_deadline_or_rechecks_a_lobby_later():
    r = rated_lobby()
    assert rated.check_at(r, 5000) == 5000 + rated.LOBBY_RECHECK_MS
    r.deadline = 700_000
    assert rated.check_at(r, 5000) == 700_000 + rated.REPAIR_GRACE_MS
    assert rated.check_at(r, 900_000) == 900_000 + rated.REPAIR_GRACE_MS


def test_the_stored_record_keeps_rated_and_sessions_only_where_set():
    r = rated.seat(rated_lobby(), "p2", "bob", "s2")
    fields = race_fields(r)
    assert fields["rated"] == 1
    assert '"session": "s1"' in fields["players"] and '"session": "s2"' in fields["players"]
    casual = R.join(R.new_race(**_args()), "p2", "bob")
    assert race_fields(casual)["rated"] == 0 and "session" not in race_fields(casual)["players"]


def _args() -> dict:
    return dict(
        race="r2",
        game="racing-aces",
        total=156,
        seats=2,
        time_limit_s=600,
        private=False,
        host="p1",
        host_name="ada",
        now=1000,
        seed="s",
    )
