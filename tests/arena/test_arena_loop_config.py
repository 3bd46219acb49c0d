"""The ``arena_schedule`` setting as the server reads it (pure)."""

from __future__ import annotations

import pytest

from server.arena import Schedule, default_schedule
from server.arena.schedule import parse_schedule

GAMES = ["racing-aces", "fours-up"]


def test_empty_is_the_default_and_off_is_none() -> None:
    assert parse_schedule("", GAMES) == default_schedule(GAMES)
    assert parse_schedule(" off ", GAMES) == Schedule()


def test_a_json_list_of_rules() -> None:
    s = parse_schedule('[{"kind": "quick", "games": ["fours-up"], "every": "10m", "duration": "5m"}]', GAMES)
    assert [(r.kind, r.games, r.every_ms, r.duration_ms) for r in s.rules] == [
        ("quick", ("fours-up",), 600_000, 300_000)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"kind": "x"}',
        "[1]",
        '[{"kind": "x", "games": "*", "every": "1h"}]',
        '[{"kind": "x", "games": ["no-such-game"], "every": "1h", "duration": "30m"}]',
        '[{"kind": "x", "games": "*", "every": "1h", "duration": "2h"}]',
    ],
)
def test_a_bad_schedule_names_the_setting(text: str) -> None:
    with pytest.raises(ValueError, match="--arena-schedule"):
        parse_schedule(text, GAMES)
