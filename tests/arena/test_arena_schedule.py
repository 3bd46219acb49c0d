"""Arenas, their validation and status, and recurring schedules."""

from __future__ import annotations

from typing import Any

import pytest

from server.arena import schedule
from server.arena.schedule import HOUR_MS, Arena, ArenaError, Recurrence, Schedule, arenas_between

GAMES = ("racing-aces", "fours-up")
T = 1_764_547_200_000  # 2025-12-01 00:00 UTC


def test_status_and_time_left():
    a = Arena("x", "racing-aces", starts=T, duration_ms=60_000)
    assert a.ends == T + 60_000
    assert schedule.status(a, T - 1) == "upcoming"
    assert schedule.status(a, T) == "running"
    assert schedule.status(a, T + 59_999) == "running"
    assert schedule.status(a, T + 60_000) == "over"
    assert schedule.time_left_ms(a, T - 5) == 60_000
    assert schedule.time_left_ms(a, T + 10_000) == 50_000
    assert schedule.time_left_ms(a, T + 99_999) == 0


@pytest.mark.parametrize(
    "change, code",
    [
        (dict(id="Bad Id"), "bad-arena"),
        (dict(id="-x"), "bad-arena"),
        (dict(game="chess"), "unknown-game"),
        (dict(seats=1), "bad-arena"),
        (dict(seats=5), "bad-arena"),
        (dict(duration_ms=1000), "bad-arena"),
        (dict(duration_ms=2 * 86_400_000), "bad-arena"),
        (dict(time_limit_s=5), "bad-arena"),
    ],
)
def test_validate_rejects(change, code):
    base = dict(id="ok-1", game="racing-aces", starts=T, duration_ms=60_000)
    with pytest.raises(ArenaError) as e:
        schedule.validate(Arena(**{**base, **change}), GAMES)
    assert e.value.code == code


def test_validate_accepts_defaults_and_round_trips():
    a = schedule.validate(
        Arena("ok-1", "fours-up", starts=T, duration_ms=60_000, seats=4, berserk=False), GAMES
    )
    d = {k: str(int(v)) if isinstance(v, bool) else str(v) for k, v in a.to_dict().items()}
    assert Arena.from_dict(d) == a


def test_hourly_arenas_per_game():
    rule = Recurrence("hourly", GAMES, every_ms=HOUR_MS, duration_ms=30 * 60_000)
    got = arenas_between(Schedule((rule,)), T, T + 2 * HOUR_MS)
    assert [(a.starts - T, a.game) for a in got] == [
        (0, "fours-up"),
        (0, "racing-aces"),
        (HOUR_MS, "fours-up"),
        (HOUR_MS, "racing-aces"),
    ]
    assert all(a.duration_ms == 30 * 60_000 for a in got)
    assert len({a.id for a in got}) == 4


def test_window_includes_running_arenas_and_ids_are_stable():
    rule = Recurrence("hourly", ("racing-aces",), every_ms=HOUR_MS, duration_ms=30 * 60_000)
    s = Schedule((rule,))
    # 00:20: the 00:00 arena still runs; 00:40: it is over
    assert [a.starts for a in arenas_between(s, T + 20 * 60_000, T + 50 * 60_000)] == [T]
    assert arenas_between(s, T + 40 * 60_000, T + 50 * 60_000) == []
    assert arenas_between(s, T, T + 1)[0].id == arenas_between(s, T - HOUR_MS, T + 1)[-1].id


def test_daily_rotates_games():
    s = schedule.default_schedule(GAMES)
    day = 86_400_000
    dailies = [a for a in arenas_between(s, T, T + 4 * day) if a.id.startswith("daily-")]
    assert [a.starts - T for a in dailies] == [20 * HOUR_MS + k * day for k in range(4)]
    assert [a.game for a in dailies][:2] == [dailies[2].game, dailies[3].game]
    assert dailies[0].game != dailies[1].game
    hourly = [a for a in arenas_between(s, T, T + day) if a.id.startswith("hourly-")]
    assert len(hourly) == 24 * len(GAMES)
    for a in arenas_between(s, T, T + 4 * day):
        schedule.validate(a, GAMES)


def test_recurrence_rejects_bad_rules():
    with pytest.raises(ArenaError):
        Recurrence("x", GAMES, every_ms=HOUR_MS, duration_ms=2 * HOUR_MS)
    with pytest.raises(ArenaError):
        Recurrence("x", (), every_ms=HOUR_MS, duration_ms=HOUR_MS)
    with pytest.raises(ArenaError):
        Recurrence("x", GAMES, every_ms=HOUR_MS, duration_ms=HOUR_MS, offset_ms=HOUR_MS)


def test_schedule_from_config():
    config: list[dict[str, Any]] = [
        {"kind": "hourly", "games": "*", "every": "1h", "duration": "30m"},
        {
            "kind": "daily",
            "games": ["fours-up"],
            "every": "1d",
            "offset": "20h30m",
            "duration": 5_400_000,
            "seats": 4,
            "berserk": False,
        },
    ]
    s = schedule.schedule_from_config(config, GAMES)
    hourly, daily = s.rules
    assert hourly.games == GAMES and hourly.every_ms == HOUR_MS and hourly.duration_ms == 1_800_000
    assert daily.offset_ms == 20 * HOUR_MS + 30 * 60_000 and daily.seats == 4 and not daily.berserk
    [d] = [a for a in arenas_between(s, T, T + 86_400_000) if a.id.startswith("daily-")]
    assert d.starts == T + daily.offset_ms and d.duration_ms == 5_400_000 and d.game == "fours-up"


@pytest.mark.parametrize(
    "rule, code",
    [
        ({"kind": "x", "games": "*", "every": "1h"}, "bad-schedule"),  # no duration
        ({"kind": "x", "games": "*", "every": "1h", "duration": "30m", "colour": 1}, "bad-schedule"),
        ({"kind": "x", "games": ["chess"], "every": "1h", "duration": "30m"}, "unknown-game"),
        ({"kind": "x", "games": "chess", "every": "1h", "duration": "30m"}, "unknown-game"),
        ({"kind": "x", "games": 7, "every": "1h", "duration": "30m"}, "bad-schedule"),
        ({"kind": "x", "games": "*", "every": "1h", "duration": "half"}, "bad-schedule"),
        ({"kind": "x", "games": "*", "every": "1h", "duration": "30m", "seats": 9}, "bad-arena"),
        ({"kind": "x", "games": "*", "every": "90s", "duration": "30s"}, "bad-schedule"),
        ({"kind": "x", "games": "*", "every": "1h", "duration": "0m"}, "bad-schedule"),
    ],
)
def test_schedule_config_errors(rule, code):
    with pytest.raises(ArenaError) as e:
        schedule.schedule_from_config([rule], GAMES)
    assert e.value.code == code


def test_a_rules_games_may_be_one_games_id():
    """Not read letter by letter (it said "no game 'r'" for "racing-aces")."""
    rule = {"kind": "x", "games": "racing-aces", "every": "1h", "duration": "30m"}
    [r] = schedule.schedule_from_config([rule], GAMES).rules
    assert r.games == ("racing-aces",)
    text = '[{"kind": "x", "games": "fours-up", "every": "1h", "duration": "30m"}]'
    assert schedule.parse_schedule(text, GAMES).rules[0].games == ("fours-up",)


def test_a_rule_whose_arenas_run_across_midnight_is_accepted():
    # 23:31 UTC for 30 minutes: each arena ends the next day (the check of the rule's arenas
    # had looked at the one of the day before the epoch, "negative start time")
    rule = {"kind": "late", "games": ["fours-up"], "every": "1d", "offset": "1411m", "duration": "30m"}
    [late] = schedule.schedule_from_config([rule], GAMES).rules
    [a] = [a for a in arenas_between(Schedule((late,)), T, T + 86_400_000) if a.starts >= T]
    assert a.starts == T + 1411 * 60_000 and a.ends == T + 86_400_000 + 60_000


def test_the_list_keeps_the_soonest_upcoming_the_latest_started_and_the_latest_ended():
    """docs/protocol.md §5a `arenas`: at most so many of each status, and a cut said."""
    now = T

    def arena(name: str, starts: int, minutes: int = 10) -> tuple[Arena, str]:
        return Arena(name, "racing-aces", starts=starts, duration_ms=minutes * 60_000), name

    upcoming = [arena(f"u{i}", now + (i + 1) * 60_000) for i in range(3)]
    running = [arena(f"r{i}", now - (i + 1) * 60_000, 30) for i in range(3)]
    over = [arena(f"o{i}", now - (i + 2) * HOUR_MS) for i in range(3)]
    forgotten = [arena("old", now - 30 * HOUR_MS)]  # ended more than a day ago
    kept, cut = schedule.listing_cut([*over, *forgotten, *running, *upcoming], now, 24 * HOUR_MS, 2)
    assert [name for _, name in kept] == ["u0", "u1", "r0", "r1", "o0", "o1"]
    assert cut
    kept, cut = schedule.listing_cut([*upcoming, *forgotten], now, 24 * HOUR_MS, 3)
    assert [name for _, name in kept] == ["u0", "u1", "u2"] and not cut
