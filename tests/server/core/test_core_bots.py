"""server/core/bots.py alone: who may seat a bot, how many bots a quick-match needs, rematch settings."""

from __future__ import annotations

import pytest
from lobby_race import lobby_race

from server.core import bots as B
from server.core import races as R
from server.core.races import RaceError


def lobby(seats: int = 2, private: bool = True) -> R.Race:
    return lobby_race(seats=seats, private=private, time_limit_s=300)


def code(fn, *args) -> str:
    with pytest.raises(RaceError) as e:
        fn(*args)
    return e.value.code


def test_a_player_seats_a_bot_in_a_free_seat_of_the_lobby():
    r = lobby()
    B.check_bot_seat(r, "p1")
    assert code(B.check_bot_seat, r, "p9") == "not-in-race"
    full = R.join(r, "p2", "bob")
    assert code(B.check_bot_seat, full, "p1") == "race-full"
    started = R.set_ready(R.set_ready(full, "p1", True, 2000, 100), "p2", True, 2000, 100)
    assert code(B.check_bot_seat, started, "p1") == "race-started"
    sealed = lobby(1)
    sealed.sealed = True
    assert code(B.check_bot_seat, sealed, "p1") == "bad-message"


def test_quick_match_bots_fill_the_seats_left():
    assert B.quick_bots_needed(2, 1) == 1
    assert B.quick_bots_needed(4, 1) == 3
    assert B.quick_bots_needed(4, 3) == 1
    assert B.quick_bots_needed(2, 0) == 0  # nobody waits any more: no bot
    assert B.quick_bots_needed(2, 2) == 0


def test_bot_names_say_the_level():
    assert B.bot_name("search") == "Search bot"
    assert B.bot_name("greedy") == "Greedy bot"


def test_rematch_keeps_the_settings_and_offers_to_the_others():
    r = R.join(lobby(3, private=False), "p2", "bob")
    assert code(B.rematch_settings, r, "p1") == "race-not-over"
    r.status = "finished"
    s = B.rematch_settings(r, "p2")
    assert (s.game, s.total, s.seats, s.time_limit_s, s.private) == ("fours-up", 104, 3, 300, False)
    assert code(B.rematch_settings, r, "p9") == "not-in-race"
    assert B.offer_to(r, "p2") == ["p1"]
    r.sealed = True
    assert code(B.rematch_settings, r, "p1") == "bad-message"
