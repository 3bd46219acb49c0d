"""server/core/transitions.py alone: the start and the end as data, their events in version order."""

from __future__ import annotations

from must import must_be

from protocol import messages as m
from server.core import races as R
from server.core import transitions


def counting_down() -> R.Race:
    r = R.new_race(
        race="r" + "1" * 16,
        game="fours-up",
        total=104,
        seats=2,
        time_limit_s=60,
        private=False,
        host="p1",
        host_name="ada",
        now=1_000,
        seed="0" * 32,
    )
    r = R.join(r, "p2", "bob")
    r = R.set_ready(r, "p1", True, 1_000, 3_000)
    return R.set_ready(r, "p2", True, 1_000, 3_000)


def test_the_start_deals_everyone_the_same_game_and_times_the_deadline():
    race = counting_down()
    t = transitions.start(race)
    assert t.race.status == "running" and t.race.ver == race.ver + 1
    assert [must_be(m.decode_server(f), m.RaceSnapshot).ver for f in t.events] == [race.ver + 1]
    assert t.live == 2 and t.timer == race.deadline
    assert t.deal is not None and t.deal.cards_home == 8  # fours-up deals its 4s home
    assert set(t.players) == {"p1", "p2"} and t.players["p1"]["n"] == 0 and t.players["p1"]["home"] == 8


def test_the_end_stops_the_players_in_order_then_ranks():
    race = transitions.start(counting_down()).race
    starts = race.starts_at
    assert starts is not None
    race.players[0].status, race.players[0].at, race.players[0].n = "finished", starts + 500, 1
    logs = {"p1": [(starts + 100, 8, "draw")], "p2": []}
    t = transitions.end(race, starts + 70_000, logs)
    events = [m.decode_server(f) for f in t.events]
    # p2 was still playing: its timeout first, then the end, one version each
    assert [type(e).__name__ for e in events] == ["Progress", "End"]
    timeout, end = must_be(events[0], m.Progress), must_be(events[1], m.End)
    assert [timeout.ver, end.ver] == [race.ver + 1, race.ver + 2] and t.race.ver == race.ver + 2
    assert timeout.player == "p2" and timeout.status == "timeout"
    assert timeout.at == race.deadline  # stopped at the deadline, not at the late tick
    assert t.players == {"p2": {"status": "timeout", "at": race.deadline}}
    # both have the 8 cards dealt home: the player who moved ranks above the one who did nothing
    assert [e.player for e in end.ranking] == ["p1", "p2"]
    assert [e.last_move_ms for e in end.ranking] == [100, None]
    assert end.seed == race.seed and t.timer is None
