"""server/core/race_list.py and gap_fill.py alone: the race list's choices and a room's gap fill. No I/O."""

from __future__ import annotations

import msgspec
from lobby_race import lobby_race

from server.core import gap_fill as gap
from server.core import races as R
from server.core.race_list import race_list


def race(
    rid: str, game: str = "fours-up", status: str = R.LOBBY, private: bool = False, ver: int = 1
) -> R.Race:
    r = lobby_race(rid, game=game, private=private)
    r.status, r.ver = status, ver
    return r


def test_the_race_list_shows_public_live_races_and_drops_gone_and_finished_ones():
    ids = ["a", "b", "c", "d", "e", "f"]
    running = race("f", game="racing-aces", status=R.RUNNING)
    loaded = [
        race("a"),
        None,  # gone (expired)
        race("c", status=R.FINISHED),
        race("d", private=True),
        ConnectionError("a failed read"),
        running,
    ]
    shown, stale = race_list(ids, loaded, None, 10)
    assert [e["race"] for e in shown] == ["a", "f"]
    assert shown[1] == R.summary(running)
    assert stale == ["b", "c"]  # a failed read is neither shown nor dropped
    shown, _stale = race_list(ids, loaded, "racing-aces", 10)
    assert [e["race"] for e in shown] == ["f"]


def test_the_race_list_stops_at_its_size():
    ids = ["a", "b", "c"]
    shown, stale = race_list(ids, [race("a"), race("b"), None], None, 2)
    assert [e["race"] for e in shown] == ["a", "b"] and stale == []  # `c` was not reached


def test_a_room_is_filled_only_when_the_race_moved_past_what_it_forwarded():
    assert not gap.needs_fill(None, 3)
    assert not gap.needs_fill(race("a", ver=3), 3)
    assert gap.needs_fill(race("a", ver=4), 3)


def test_the_fill_is_the_missed_events_or_else_the_snapshot():
    r = race("a", status=R.RUNNING, ver=9)
    assert gap.fill_frames(r, [b"e4", b"e5"]) == [b"e4", b"e5"]
    assert gap.fill_frames(r, []) == []
    (frame,) = gap.fill_frames(r, None)  # the stream no longer reaches back: the snapshot
    snap = msgspec.msgpack.decode(frame)
    assert snap["t"] == "race" and snap["ver"] == 9 and snap["race"] == "a"


def test_retries_back_off_doubling():
    delays = [gap.retry_delay_s(a) for a in range(gap.ATTEMPTS - 1)]
    assert delays == [0.05, 0.1, 0.2, 0.4, 0.8]


def test_a_lobby_is_listed_only_from_its_listed_from_time():
    held = race("a")
    held.listed_from = 5000  # a fresh rematch
    running = race("b", status=R.RUNNING)
    running.listed_from = 5000  # only a lobby is held out
    shown, stale = race_list(["a", "b"], [held, running], None, 10, now=4999)
    assert [e["race"] for e in shown] == ["b"] and stale == []  # still indexed
    shown, _stale = race_list(["a", "b"], [held, running], None, 10, now=5000)
    assert [e["race"] for e in shown] == ["a", "b"]
