"""server/core/lobby.py's compare-and-set plan of a lobby change, alone: no Redis, no sockets."""

from __future__ import annotations

import msgspec
from lobby_race import lobby_race

from server.core import races as R
from server.core.lobby import CAS_ATTEMPTS, lobby_commit, retry_delay_s

LOBBY_TTL_S, FINISHED_TTL_S = 600, 86400


def test_a_no_op_change_writes_nothing():
    r = lobby_race()
    seated_again = R.join(r, "p1", "ada")  # p1 holds a seat already: no change
    assert lobby_commit(r, seated_again, 2000, LOBBY_TTL_S, FINISHED_TTL_S) is None
    assert r.ver == 1
    # a ready (or not ready) that the player already is: no new version, no event
    assert lobby_commit(r, R.set_ready(r, "p1", False, 2000, 100), 2000, LOBBY_TTL_S, FINISHED_TTL_S) is None
    ready = R.set_ready(r, "p1", True, 2000, 100)
    assert (
        lobby_commit(ready, R.set_ready(ready, "p1", True, 2000, 100), 2000, LOBBY_TTL_S, FINISHED_TTL_S)
        is None
    )


def test_a_change_bumps_the_version_and_publishes_the_snapshot():
    r = lobby_race()
    plan = lobby_commit(r, R.join(r, "p2", "bob"), 2000, LOBBY_TTL_S, FINISHED_TTL_S)
    assert plan is not None
    assert plan.race.ver == r.ver + 1 and r.ver == 1  # the loaded race is left as it was
    event = msgspec.msgpack.decode(plan.event)
    assert event["t"] == "race" and event["ver"] == plan.race.ver
    assert [p["player"] for p in event["players"]] == ["p1", "p2"]
    assert plan.ttl_ms == LOBBY_TTL_S * 1000  # a lobby idles out
    assert plan.timer is None  # no countdown started


def test_the_change_that_starts_the_countdown_sets_the_timer_once():
    r = R.set_ready(R.join(lobby_race(), "p2", "bob"), "p1", True, 2000, 100)
    r.ver = 3
    full = R.set_ready(r, "p2", True, 3000, 100)
    plan = lobby_commit(r, full, 3000, LOBBY_TTL_S, FINISHED_TTL_S)
    assert plan is not None and plan.race.status == R.COUNTDOWN
    assert plan.timer == 3100 == plan.race.starts_at  # the sweeper looks again at the start
    # a started race lives until its deadline plus a day
    assert plan.ttl_ms == (plan.race.deadline or 0) - 3000 + 86400 * 1000
    # a later change of a counting-down race does not set the timer again
    again = plan.race.copy()
    again.players[0].name = "ada2"
    later = lobby_commit(plan.race, again, 3050, LOBBY_TTL_S, FINISHED_TTL_S)
    assert later is not None and later.timer is None and later.race.ver == plan.race.ver + 1


def test_conflicts_back_off_a_little_more_each_time():
    delays = [retry_delay_s(a) for a in range(CAS_ATTEMPTS)]
    assert delays[0] == 0 and delays == sorted(delays) and delays[-1] < 0.1
