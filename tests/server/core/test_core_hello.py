"""server/core/hello.py alone: resume or create, the new-session limit's exemptions, what a hello rejoins."""

from __future__ import annotations

import pytest
from lobby_race import lobby_race

from protocol import messages as m
from server.core import hello as H
from server.core import races as R
from server.core.races import RaceError

LOCAL = H.exempt_networks("127.0.0.0/8, ::1")


def plan(
    v: int = m.PROTOCOL_VERSION, name: str | None = None, token: str | None = None, addr: str = "10.0.0.1"
):
    return H.plan_hello(v, name, token, addr, max_name=10, exempt=LOCAL)


def test_a_token_resumes_and_is_never_counted():
    assert plan(token="t") == H.HelloPlan(resume="t", count_new=False)


def test_a_new_session_is_counted_unless_its_address_is_exempt():
    assert plan() == H.HelloPlan(resume=None, count_new=True)
    assert plan(addr="127.0.0.5").count_new is False
    assert plan(addr="::1").count_new is False
    assert plan(addr="not an address").count_new is True  # (a unix socket's peer, say)
    assert H.plan_hello(1, None, None, "127.0.0.1", max_name=10, exempt=[]).count_new is True


def test_exempt_networks_read_the_setting():
    assert [str(n) for n in H.exempt_networks(" 10.1.2.3/8 ,, 192.168.0.0/16")] == [
        "10.0.0.0/8",
        "192.168.0.0/16",
    ]
    assert H.exempt_networks("") == []


def test_refusals_carry_their_codes():
    with pytest.raises(RaceError) as e:
        plan(v=999)
    assert e.value.code == "bad-version" and e.value.extra["supported"] == list(m.SUPPORTED_VERSIONS)
    with pytest.raises(RaceError) as e:
        plan(name="x" * 11, token="t")
    assert e.value.code == "bad-message" and e.value.extra["field"] == "name"
    assert plan(name="x" * 10).count_new  # at the limit: fine
    assert H.unknown_token().code == "bad-token"
    refused = H.too_many_new_sessions(1500)
    assert refused.code == "rate-limited" and refused.extra["retry_ms"] == 1500


def test_a_new_session_is_named():
    assert H.new_session_name("ada", "beef") == "ada"
    assert H.new_session_name(None, "beef") == H.new_session_name("", "beef") == "player-beef"


def test_a_hello_rejoins_the_races_not_finished():
    r = lobby_race(seats=1)
    assert H.rejoins(r)
    r.status = R.RUNNING
    assert H.rejoins(r)
    r.status = R.FINISHED
    assert not H.rejoins(r)
    assert not H.rejoins(None)


@pytest.mark.parametrize(
    "name",
    [
        "admin",
        "ADMIN",
        "Administrator",
        "ａｄｍｉｎ",
        "system",
        "Search bot",
        "search  BOT",
        "Greedy bot 2",
        "Random bot",
    ],
)
def test_a_guest_may_not_take_a_name_that_speaks_for_the_server_or_a_bot(name: str):
    assert H.reserved_name(name)


@pytest.mark.parametrize("name", ["ada", "bot", "guest", "bot-1", "Searchbot", "my admin", "player-ab12"])
def test_other_names_are_not_reserved(name: str):
    assert not H.reserved_name(name)


def test_the_account_names_a_display_name_could_pass_for():
    assert H.account_name_keys("Ada") == ["ada"]
    assert H.account_name_keys("ＡＤＡ") == ["ada"]  # full-width: the same name on screen
    assert H.account_name_keys("ada 2") == ["ada"]  # as a race shows a second "ada"
    # No account can have these: no lookup at all.
    assert H.account_name_keys("Grand master") == []
    assert H.account_name_keys("al") == []
    assert H.account_name_keys("Zoë") == []
    err = H.name_taken()
    assert err.code == m.ErrorCode.NAME_TAKEN and err.extra == {"field": "name"}
