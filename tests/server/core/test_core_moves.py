"""server/core/moves.py, spectators.py and frames.py alone, and the move reply decoder. No I/O."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode
from server.core import frames, spectators
from server.core import moves as core
from server.core.moves import Applied, Duplicate, Entry, Failed, Refused, Step
from server.core.room import Room
from server.storage.moves import decode_reply
from server.storage.positions import PositionCache


def make_room() -> Room[Any]:
    return Room("r" + "0" * 16, "racing-aces", "running", 5, "s", ["a"], 0, 60_000, 104, "c", sent=5)


def entry(n: int = 3, status: str = "playing", last: str = "draw") -> Entry:
    g = rules.deal("racing-aces", "0" * 32)
    return Entry(g, PositionCache(g), n, status, last)


def test_fast_path_needs_the_cached_count_and_a_playing_game():
    e = entry(n=3)
    assert core.on_fast_path(e, 3)
    assert not core.on_fast_path(e, 2) and not core.on_fast_path(None, 3)
    e.status = "won"
    assert not core.on_fast_path(e, 3)


def test_fast_path_waits_for_the_moves_in_flight():
    e = entry(n=3)
    e.sent("draw", won=False)
    assert e.n == 4 and not core.on_fast_path(e, 4)  # decided on a move Redis may yet refuse
    e.landed()
    assert core.on_fast_path(e, 4)


def test_slow_step():
    assert core.slow_step(entry(n=3, last="draw"), 2, "draw") is Step.REACK
    assert core.slow_step(entry(n=3, status="won"), 3, "draw") is Step.GAME_OVER
    assert core.slow_step(entry(n=3, status="won"), 3, "draw", past_deadline=True) is Step.RACE_OVER
    assert core.slow_step(entry(n=3), 3, "draw", past_deadline=True) is Step.APPLY  # Redis decides
    assert core.slow_step(entry(n=3), 5, "draw") is Step.OUT_OF_SYNC
    assert core.slow_step(entry(n=3), 3, "draw") is Step.APPLY


def test_an_illegal_move_after_the_time_is_up_says_so():
    e = entry()
    assert core.too_late(e, 59_999, 60_000) is None  # in time: illegal-move
    assert core.too_late(e, 60_000, 60_000) is ErrorCode.RACE_NOT_RUNNING
    e.dl = 30_000  # a berserk player's own clock
    assert core.too_late(e, 29_999, 60_000) is None
    assert core.too_late(e, 30_000, 60_000) is ErrorCode.GAME_OVER
    assert core.too_late(e, 60_000, 60_000) is ErrorCode.RACE_NOT_RUNNING  # the race's end comes first
    assert core.too_late(entry(), 10**13, None) is None  # no deadline known here


def test_in_flight_moves_and_their_waiters():
    async def run() -> None:
        e = entry(n=0)
        e.sent("draw", won=False)
        e.sent("draw", won=True)
        assert (e.n, e.inflight, e.last, e.status) == (2, 2, "draw", "won")
        waiter = asyncio.get_running_loop().create_future()
        e.idle.append(waiter)
        e.landed()
        assert not waiter.done()
        e.landed()
        assert waiter.done() and not e.idle

    asyncio.run(run())


def test_refusals_map_to_errors():
    err, state = core.refusal(7, Refused(ErrorCode.OUT_OF_SYNC, 12))
    assert (err.code, err.n, err.rid, state) == ("out-of-sync", 12, 7, True)
    err, state = core.refusal(None, Refused(ErrorCode.GAME_OVER, 4))
    assert (err.code, err.message, state) == ("game-over", "your game is over", False)
    err, _ = core.refusal(None, Failed(ConnectionError("gone")))
    assert err.code == ErrorCode.INTERNAL


def test_script_replies_decode_typed():
    ok = decode_reply([b"ok", 4, 1_000, 9, -1, b"frame"])
    assert type(ok) is Applied and (ok.n, ok.at, ok.ver, ok.live, ok.frame) == (4, 1_000, 9, -1, b"frame")
    dup = decode_reply([b"dup", 4, 10, b"playing", 1_000, b"w:7c t3:Kd", 12])
    assert type(dup) is Duplicate and dup.revealed == [("w", "7c"), ("t3", "Kd")] and dup.ver == 12
    ref = decode_reply([b"out-of-sync", 6])
    assert type(ref) is Refused and ref.code == ErrorCode.OUT_OF_SYNC and ref.n == 6
    assert type(decode_reply([b"no-such-race"])) is Refused
    assert type(decode_reply(ConnectionError("x"))) is Failed
    assert type(decode_reply([b"what"])) is Failed


def test_the_hand_packed_progress_frame_is_the_progress_message():
    rid = "r" + "a" * 16
    prefix = frames.progress_prefix(frames.progress_head(rid, "p1"), 300, 130, False)
    tail = (
        (70_000).to_bytes(4, "big") + b"\xa5total\xcc" + bytes([104]) + b"\xa2at\xcf" + (5).to_bytes(8, "big")
    )
    whole = frames.progress(rid, 70_000, "p1", 300, 130, 104, "playing", 5)
    assert m.decode_server(prefix + tail) == m.decode_server(whole)


def test_spectators_see_each_sample_once_after_the_delay():
    room = make_room()
    assert spectators.begin_sample(room)
    spectators.add_sample(room, 1_000, ["first"])
    assert not spectators.begin_sample(room)
    assert spectators.due_boards(room, 5_000, 10_000) is None  # too early
    room.dirty = True
    assert spectators.begin_sample(room)
    spectators.add_sample(room, 3_000, ["second"])
    assert spectators.due_boards(room, 11_000, 10_000) == (1_000, ["first"])
    assert spectators.due_boards(room, 12_000, 10_000) is None  # shown already
    assert spectators.due_boards(room, 13_000, 10_000) == (3_000, ["second"])


def test_a_move_during_a_boards_read_is_read_next_time():
    room = make_room()
    assert spectators.begin_sample(room)
    spectators.add_sample(room, 1_000, ["first"])
    room.dirty = True
    assert spectators.begin_sample(room)
    room.dirty = True  # a move lands while the positions are read: the read may have missed it
    spectators.add_sample(room, 2_000, ["maybe without it"])
    assert spectators.begin_sample(room)
    spectators.sample_failed(room)  # a read that failed leaves the changes to read
    assert spectators.begin_sample(room)
