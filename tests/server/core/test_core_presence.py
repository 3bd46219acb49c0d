"""server/core/presence.py alone: who waits in a public lobby, and its away clock. No I/O."""

from __future__ import annotations

from lobby_race import lobby_race

from server.core import presence as P
from server.core import races as R
from server.core.race_list import race_list

AWAY = 60_000


def with_bot() -> R.Race:
    return R.join(lobby_race("r1"), "bot-1234", "Greedy bot")


def test_only_a_public_lobby_someone_sits_in_is_watched():
    assert P.watched(lobby_race())
    assert not P.watched(lobby_race(private=True))  # not listed; each seat costs its player
    quick = lobby_race()
    quick.quick = True
    assert not P.watched(quick)
    started = lobby_race()
    started.status = R.COUNTDOWN
    assert not P.watched(started)
    assert not P.watched(R.leave(lobby_race(), "p1"))  # everybody left


def test_bots_do_not_count_as_someone_waiting():
    r = with_bot()
    assert P.people(r) == ["p1"]
    assert P.unattended(r, {"bot-1234"})
    assert not P.unattended(r, {"p1"})
    assert not P.unattended(lobby_race(private=True), set())  # not watched at all


def test_the_list_hides_the_unattended_lobbies_only():
    attended = R.join(lobby_race("r2"), "p2", "bo")
    loaded = [lobby_race("r1"), attended, None, ConnectionError("a failed read")]
    assert P.hidden(loaded, {"p2"}) == {"r1"}


def test_an_attended_lobby_is_looked_at_again_a_grace_later():
    s = P.step(lobby_race(), {"p1"}, None, 5000, AWAY)
    assert s == P.Step(release=False, mark=False, next_at=5000 + AWAY)


def test_an_unattended_lobby_waits_out_its_grace_from_its_mark():
    s = P.step(lobby_race(), set(), None, 5000, AWAY)  # first found alone now
    assert s == P.Step(release=False, mark=True, next_at=5000 + AWAY)
    s = P.step(lobby_race(), set(), 5000, 5000 + AWAY - 1, AWAY)
    assert s == P.Step(release=False, mark=True, next_at=5000 + AWAY)
    s = P.step(lobby_race(), set(), 5000, 5000 + AWAY, AWAY)
    assert s == P.Step(release=True, mark=True, next_at=None)


def test_a_lobby_no_longer_watched_needs_no_clock():
    started = lobby_race()
    started.status = R.COUNTDOWN
    assert P.step(started, set(), 1, 10**9, AWAY) == P.Step(release=False, mark=False, next_at=None)


def test_the_release_empties_the_lobby_it_was_decided_for():
    r = with_bot()
    out = P.release(r, ["p1", "bot-1234"])
    assert out is not r and out.players == [] and out.host == "" and out.status == R.LOBBY
    assert r.players  # the loaded race is not changed


def test_a_released_lobby_gets_its_first_player_who_is_no_bot_as_host():
    three = R.join(lobby_race("r1", seats=3), "bot-1234", "Greedy bot")
    empty = P.release(three, ["p1", "bot-1234"])
    r = R.join(empty, "bot-5678", "Greedy bot")
    assert r.host == ""  # a bot never starts a race
    r = R.set_ready(R.join(r, "p2", "bo"), "p2", True, 0, 100)
    assert r.host == "p2"
    assert R.join(r, "p3", "cy").host == "p2"
    r = R.set_ready(r, "bot-5678", True, 0, 100)
    assert R.host_start(r, "p2", 10, 100).status == R.COUNTDOWN  # it can be started again


def test_a_lobby_that_changed_since_is_not_released():
    r = R.join(lobby_race(), "p2", "bo")  # someone joined after the decision
    assert P.release(r, ["p1"]) is r
    started = lobby_race()
    started.status = R.COUNTDOWN
    assert P.release(started, ["p1"]) is started


def test_the_race_list_leaves_out_the_unattended_and_drops_the_emptied():
    empty = R.leave(lobby_race("r3"), "p1")
    ids = ["r1", "r2", "r3"]
    shown, stale = race_list(ids, [lobby_race("r1"), lobby_race("r2"), empty], None, 10, {"r1"})
    assert [e["race"] for e in shown] == ["r2"]
    assert stale == ["r3"]  # a lobby everybody left is off the index; r1's people may come back
