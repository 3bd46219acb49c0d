"""Pure decisions of server/certify: who may get a hint, which games are certified,
what the end publishes; and the worker's certification re-played by the engine."""

from __future__ import annotations

import pytest

from protocol import rules
from protocol.messages import ErrorCode, RaceStatus
from server.certify import work
from server.certify.rules import certified_games, check_hint, hints_allowed
from server.core import races as R
from server.core.races import RaceError


def race(seats: int = 1, players: int = 1, **fields: object) -> R.Race:
    r = R.new_race(
        race="r1",
        game="racing-aces",
        total=52,
        seats=seats,
        time_limit_s=600,
        private=False,
        host="p0",
        host_name="P0",
        now=0,
        seed="s",
    )
    for i in range(1, players):
        r = R.join(r, f"p{i}", f"P{i}")
    r.status = RaceStatus.RUNNING
    for p in r.players:
        p.status = R.PLAYING
    for name, value in fields.items():
        setattr(r, name, value)
    return r


def test_hints_only_in_casual_solo_races() -> None:
    assert hints_allowed(race())
    assert not hints_allowed(race(hints=False))  # created with hints: false
    assert not hints_allowed(race(sealed=True))  # a daily attempt
    assert not hints_allowed(race(seats=2, players=2))  # several players
    assert not hints_allowed(race(seats=2, players=1))  # a seat left for a rival


def test_a_rated_race_never_gets_hints() -> None:
    assert not hints_allowed(race(rated=True))


def test_check_hint_codes() -> None:
    assert check_hint(race(), "p0").player == "p0"
    with pytest.raises(RaceError) as info:
        check_hint(race(), "stranger")
    assert info.value.code == ErrorCode.NOT_IN_RACE
    with pytest.raises(RaceError) as info:
        check_hint(race(seats=2, players=2), "p0")
    assert info.value.code == ErrorCode.HINTS_FORBIDDEN
    lobby = race()
    lobby.status = RaceStatus.LOBBY
    with pytest.raises(RaceError) as info:
        check_hint(lobby, "p0")
    assert info.value.code == ErrorCode.RACE_NOT_RUNNING


def test_certified_games_setting() -> None:
    assert certified_games("all") == frozenset(rules.GAMES)
    assert certified_games("none") == frozenset()
    assert certified_games("") == frozenset()
    assert certified_games("racing-aces, rouge-et-noir") == {"racing-aces", "rouge-et-noir"}


def test_the_proof_is_published_only_once_finished_and_never_sealed() -> None:
    r = race(certified=True, proof="draw w>t0")
    assert R.published_proof(r) == (None, None)
    r.status = RaceStatus.FINISHED
    assert R.published_proof(r) == (["draw", "w>t0"], 2)
    r.sealed = True
    assert R.published_proof(r) == (None, None)
    assert R.published_proof(race(status=RaceStatus.FINISHED)) == (None, None)  # not certified


def test_the_worker_keeps_only_seeds_whose_line_wins() -> None:
    seeds = [f"{i:032x}" for i in range(6)]
    found = work.certify("racing-aces", seeds, 2500)
    assert found, "some of six Racing Aces deals are certified at this budget"
    for seed, line in found:
        assert seed in seeds
        assert rules.replay("racing-aces", seed, line).won
