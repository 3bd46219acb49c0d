"""server/core/hello.py alone: resume or create, the new-session limit, what a hello rejoins."""

from __future__ import annotations

import pytest
from lobby_race import lobby_race

from protocol import messages as m
from server.core import hello as H
from server.core import races as R
from server.core.races import RaceError


def plan(
    v: int = m.PROTOCOL_VERSION, name: str | None = None, token: str | None = None, exempt: bool = False
):
    return H.plan_hello(v, name, token, max_name=10, exempt=exempt)


def test_a_token_resumes_and_is_never_counted():
    assert plan(token="t") == H.HelloPlan(resume="t", count_new=False)


def test_a_new_session_is_counted_unless_its_address_is_exempt():
    assert plan() == H.HelloPlan(resume=None, count_new=True)
    assert plan(exempt=True).count_new is False
    assert plan(token="t", exempt=True).count_new is False


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


# Look-alikes from other alphabets (core/lookalikes.py, Unicode TR39 confusables).
CYRILLIC_A, CYRILLIC_DZE, GREEK_OMICRON = "\u0430", "\u0405", "\u03bf"


@pytest.mark.parametrize(
    "name",
    [
        f"{CYRILLIC_A}dmin",  # Cyrillic а
        f"{CYRILLIC_DZE}earch bot",  # Cyrillic Ѕ
        f"Rand{GREEK_OMICRON}m bot",  # Greek ο
        "\u0251dmin",  # Latin alpha ɑ: not ASCII, not folded by NFKC
        "\U0001d68admin 2",  # mathematical monospace a, and a race's suffix
        "ad\u00admin",  # a soft hyphen, invisible
        "admin\u034f",  # a combining grapheme joiner: default-ignorable, kept by NFKC
        "ad\u3164min",  # a Hangul filler, drawn blank
        "Search bot\ufe0e",  # a variation selector
        "ad\U000e0100min",  # a supplementary variation selector
        "\u0405\u0423\u0405\u0422\u0415\u039c",  # "SYSTEM" all in Cyrillic and Greek capitals
    ],
)
def test_a_look_alike_of_a_reserved_name_is_reserved(name: str):
    assert H.reserved_name(name)


def test_a_name_in_another_alphabet_is_compared_by_its_latin_look_alike():
    assert "ada" in H.account_name_keys(f"{CYRILLIC_A}d{CYRILLIC_A}")
    assert "ada" in H.account_name_keys(f"{CYRILLIC_A.upper()}D{CYRILLIC_A.upper()}")
    # A capital read both as it is drawn and as its small form: Cyrillic "І" is drawn as "I".
    assert "ian" in H.account_name_keys("\u0406an")
    # Greek "ΝΟRΑ" is drawn as "NORA".
    assert "nora" in H.account_name_keys("\u039d\u039fR\u0391")
    # Invisible characters NFKC keeps are dropped too.
    assert "zelda" in H.account_name_keys("ze\u034flda\ufe0f")
    assert "zelda" in H.account_name_keys("zelda\uffa0")


@pytest.mark.parametrize("name", ["Анна", "李雷", "Zoë", "Ωmega", "Вася"])
def test_ordinary_names_in_other_alphabets_look_like_no_account_and_read_nothing(name: str):
    """Only characters drawn like Latin ones are mapped: a name with any other letter is not
    account-shaped, so it costs no lookup and is refused by nobody."""
    assert H.account_name_keys(name) == []
    assert not H.reserved_name(name)


def test_ascii_is_never_mapped_to_its_own_look_alikes():
    """TR39 gives "m" the prototype "rn" and "1" the prototype "l": those differ on screen."""
    assert H.name_keys("admin") == {"admin"}
    assert H.account_name_keys("l33t") == ["l33t"]
