"""server/core/room.py alone: event order, who receives what, the start, timers. No Redis, no sockets."""

from __future__ import annotations

from server.core import room as rooms
from server.core.room import Delivery, Room


class Sink:
    def __init__(self, name: str, player: str = "") -> None:
        self.name = name
        self.player = player or name[:1]
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def __repr__(self) -> str:
        return self.name


def make_room(status: str = "running", ver: int = 5) -> Room[Sink]:
    return Room(
        rid="r" + "0" * 16,
        game="racing-aces",
        status=status,
        ver=ver,
        seed="s",
        pids=["a", "b"],
        starts_at=1_000,
        deadline=61_000,
        total=52,
        commitment="c",
        sent=ver,
    )


def test_events_go_out_in_version_order_once_each():
    room = make_room(ver=5)
    assert rooms.deliver(room, "progress", 5) is Delivery.SKIP  # the version the room started at
    assert rooms.deliver(room, "progress", 6) is Delivery.PROGRESS
    assert rooms.deliver(room, "progress", 6) is Delivery.SKIP  # its copy on the bus
    assert rooms.deliver(room, "race", 7) is Delivery.SNAPSHOT
    assert rooms.deliver(room, "end", 8) is Delivery.END
    assert room.sent == room.ver == 8


def test_a_local_move_goes_out_at_once_only_when_it_is_the_next_version():
    room = make_room(ver=5)
    assert rooms.take_local_progress(room, 6)
    assert rooms.deliver(room, "progress", 6) is Delivery.SKIP  # the bus copy is skipped later
    assert not rooms.take_local_progress(room, 8)  # 7 has not gone out here: the bus brings 8 in order
    assert room.sent == 6
    room.filling = []  # a gap fill runs: nothing goes out ahead of it
    assert not rooms.take_local_progress(room, 7)


def test_progress_goes_to_everyone_but_the_mover_and_to_spectators():
    room = make_room()
    a1, a2, b, watcher = Sink("a1"), Sink("a2"), Sink("b"), Sink("w")
    room.members = {"a": {a1, a2}, "b": {b}}
    room.spectators = {watcher}
    assert set(rooms.progress_recipients(room, "a")) == {b, watcher}
    # a timeout has no ack: its player gets the progress too
    assert rooms.progress_mover("a", "timeout") is None
    assert set(rooms.progress_recipients(room, rooms.progress_mover("a", "timeout"))) == {a1, a2, b, watcher}
    assert set(rooms.everyone(room)) == {a1, a2, b, watcher}


def test_a_snapshot_says_when_the_race_starts_and_the_timer_follows():
    room = make_room(status="countdown", ver=3)
    assert rooms.rearm(room) == (True, 1_000)  # the countdown's end
    assert rooms.rearm(room) == (False, 1_000)
    assert rooms.apply_snapshot(room, "running", 4, ["a", "b"], 1_000, 61_000)
    assert not rooms.apply_snapshot(room, "running", 4, ["a", "b"], 1_000, 61_000)  # once
    assert rooms.rearm(room) == (True, 61_000)  # the deadline
    rooms.apply_snapshot(room, "finished", 9, ["a", "b"], 1_000, 61_000)
    assert rooms.rearm(room) == (True, None)


def test_a_loaded_race_updates_the_room_only_when_newer():
    room = make_room(ver=5)
    rooms.update(room, "finished", 4, ["a"], None, None)
    assert room.status == "running" and room.pids == ["a", "b"]
    rooms.update(room, "finished", 6, ["a"], None, None)
    assert room.status == "finished" and room.pids == ["a"]


def test_a_spectator_who_takes_a_seat_is_found():
    room = make_room()
    a_watching, c_watching, c_other = Sink("a-w", "a"), Sink("c-w", "c"), Sink("c-2", "c")
    room.spectators = {a_watching, c_watching, c_other}
    assert set(rooms.seated_spectators(room, room.pids)) == {a_watching}
    assert set(rooms.seated_spectators(room, ["a", "b", "c"])) == {a_watching, c_watching, c_other}
    room.spectators = set()
    assert rooms.seated_spectators(room, ["a"]) == []


def test_a_late_member_gets_the_loaded_snapshot_only_at_the_version_forwarded():
    room = make_room(ver=5)
    assert rooms.joined_at(room, 5) is rooms.Joined.SEND
    assert rooms.joined_at(room, 6) is rooms.Joined.BUS  # not forwarded yet: the bus brings it
    assert rooms.joined_at(room, 4) is rooms.Joined.RELOAD  # newer went out meanwhile
    assert rooms.joined_at(None, 4) is rooms.Joined.SEND
