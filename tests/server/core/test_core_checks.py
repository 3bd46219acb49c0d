"""server/core/checks.py alone: request checks and their error codes."""

from __future__ import annotations

import pytest

from server.core import checks
from server.core.races import RaceError


def refused(fn, *args) -> tuple[str, object]:
    with pytest.raises(RaceError) as e:
        fn(*args)
    return e.value.code, e.value.extra.get("field")


def test_checks():
    assert checks.game("fours-up").id == "fours-up"
    assert refused(checks.game, "chess") == ("unknown-game", None)
    assert checks.seats(8, 2, 8) == 8 and refused(checks.seats, 9, 2, 8) == ("bad-message", "seats")
    assert checks.seats(None, 2, 8) == 2
    assert checks.time_limit(None, 600, 30, 7200) == 600 and checks.time_limit(30, 600, 30, 7200) == 30
    assert refused(checks.time_limit, 29, 600, 30, 7200) == ("bad-message", "time_limit_s")
    checks.seat_limit(7, 8)
    assert refused(checks.seat_limit, 8, 8) == ("too-many-races", None)
    assert checks.no_such_race().code == "no-such-race" and checks.not_in_race().code == "not-in-race"
