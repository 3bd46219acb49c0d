"""server/core/privacy.py alone: who may see, join and spectate a race. No I/O."""

from __future__ import annotations

import pytest
from lobby_race import lobby_race

from server.core import privacy
from server.core import races as R
from server.core.races import RaceError

SECRET = "s3cr3t-invite_token"


def race(*, private: bool = False, invite: str = "", sealed: bool = False) -> R.Race:
    r = lobby_race(seats=3, private=private)
    r.invite, r.sealed = invite, sealed
    return r


def code(fn, *args) -> str | None:
    try:
        fn(*args)
    except RaceError as e:
        return e.code
    return None


def test_a_public_race_is_open_to_everyone():
    r = race()
    for who in ("p1", "p9"):
        assert privacy.may_see(r, who, None)
        assert code(privacy.check_join, r, who, None) is None
    assert code(privacy.check_spectate, r, "p9", None) is None
    assert code(privacy.check_spectate, r, "p1", None) == "is-player"
    assert privacy.invite_for(r, "p1") is None


def test_a_private_race_needs_its_invite_unless_you_play_in_it():
    r = race(private=True, invite=SECRET)
    for check in (privacy.check_see, privacy.check_join, privacy.check_spectate):
        assert code(check, r, "p9", None) == "private-race"
        assert code(check, r, "p9", "wrong") == "private-race"
        assert code(check, r, "p9", SECRET[:-1]) == "private-race"
        assert code(check, r, "p9", SECRET) is None
    # Its player needs no invite, and spectating your own race is is-player, not private-race.
    assert privacy.may_see(r, "p1", None)
    assert code(privacy.check_join, r, "p1", None) is None
    assert code(privacy.check_spectate, r, "p1", None) == "is-player"
    # Only its players are handed the invite.
    assert privacy.invite_for(r, "p1") == SECRET
    assert privacy.invite_for(r, "p9") is None


@pytest.mark.parametrize("status", [R.LOBBY, R.COUNTDOWN, R.RUNNING])
def test_a_daily_attempt_is_its_players_alone_until_it_ends(status: str):
    r = race(private=True, sealed=True)
    r.status = status
    assert not privacy.may_see(r, "p9", None)
    assert not privacy.may_see(r, "p9", "")
    assert code(privacy.check_see, r, "p9", None) == "private-race"
    assert privacy.may_see(r, "p1", None)


def test_an_ended_daily_attempt_can_be_resynced_but_never_joined_or_spectated():
    r = race(private=True, sealed=True)
    r.status = R.FINISHED
    assert privacy.may_see(r, "p9", None)
    assert code(privacy.check_join, r, "p9", None) == "private-race"
    assert code(privacy.check_spectate, r, "p9", None) == "private-race"
    assert code(privacy.check_spectate, r, "p1", None) == "is-player"
    assert privacy.invite_for(r, "p1") is None  # a daily attempt has no invite
    assert privacy.may_see_events(r, "p1") and not privacy.may_see_events(r, "p9")
    assert privacy.may_see_events(race(private=True, invite=SECRET), "p9")


def test_a_private_race_without_an_invite_is_closed_to_every_outsider():
    r = race(private=True, invite="")
    assert code(privacy.check_see, r, "p9", "") == "private-race"
    assert code(privacy.check_join, r, "p9", "") == "private-race"
