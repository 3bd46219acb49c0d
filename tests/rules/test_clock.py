"""A player's own clock (protocol/clock.py): the race's deadline, or half of it for a berserk."""

from __future__ import annotations

from protocol.clock import half_clock_s, own_deadline


def test_half_the_clock_rounds_up_to_a_whole_second():
    assert half_clock_s(300) == 150
    assert half_clock_s(61) == 31
    assert half_clock_s(1) == 1


def test_a_player_who_did_not_berserk_keeps_the_race_deadline():
    assert own_deadline(1_300_000, 1_000_000, 300, berserk=False) == 1_300_000


def test_a_berserk_player_has_half_the_clock_from_the_start():
    assert own_deadline(1_061_000, 1_000_000, 61, berserk=True) == 1_031_000


def test_before_the_start_there_is_no_half_clock():
    assert own_deadline(None, None, 300, berserk=True) is None
