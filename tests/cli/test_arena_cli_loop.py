"""`solrace arena`'s loop (client/cli/arena.py): the arena app, and when its player pressed
`p`, the race screen on that race, then the arena app again on the same arena."""

from __future__ import annotations

import argparse

import pytest

from client.cli import arena as arena_cli
from client.tui.arena_app import PlayNext


class Runs:
    """Fake app runners: the arena app's exits, in order; what each app was opened on."""

    def __init__(self, *exits: tuple[int, PlayNext | None]) -> None:
        self.exits = list(exits)
        self.calls: list[tuple[str, str | None]] = []

    def arena(self, arena: str | None) -> tuple[int, PlayNext | None]:
        self.calls.append(("arena", arena))
        return self.exits.pop(0)

    def play(self, race: str) -> int:
        self.calls.append(("play", race))
        return 0


def test_leaving_the_arena_app_without_a_race_ends_the_command():
    runs = Runs((3, None))
    assert arena_cli.arena_loop(runs.arena, runs.play, None) == 3
    assert runs.calls == [("arena", None)]


def test_p_plays_the_race_then_reopens_its_arena_until_left():
    runs = Runs((0, PlayNext("cup", "r1")), (0, PlayNext("cup", "r2")), (0, None))
    assert arena_cli.arena_loop(runs.arena, runs.play, None) == 0
    assert runs.calls == [
        ("arena", None),  # the list; the player opened "cup" there, was paired, pressed p
        ("play", "r1"),
        ("arena", "cup"),  # back on the arena the race was of
        ("play", "r2"),
        ("arena", "cup"),
    ]


def test_run_plays_the_race_as_solrace_play_race_does(monkeypatch: pytest.MonkeyPatch):
    """`run`: the arena app opened on --arena; `p` there runs the play app resuming the race
    (as `solrace play --race`), on the same server; then the arena app again."""
    from client.tui.arena_app import ArenaApp
    from client.tui.play_app import PlayApp

    calls: list[tuple[str, object]] = []

    def arena_run(self: ArenaApp, **_run: object) -> int:  # client/tui/run.py passes its loop
        calls.append(("arena", self.initial_arena))
        if len(calls) == 1:
            self.play_next = PlayNext("cup", "r1")  # what `p` leaves
        return 0

    def play_run(self: PlayApp, **_run: object) -> int:
        assert self.intent is not None
        calls.append(("play", (self.intent.mode, self.intent.race, self.server_url, self.back_to)))
        return 0

    monkeypatch.setattr(ArenaApp, "run", arena_run)
    monkeypatch.setattr(PlayApp, "run", play_run)
    args = argparse.Namespace(url=["ws://x:1/ws"], name="ada", token_file="/tmp/t", arena="cup")
    assert arena_cli.run(args) == 0
    assert calls == [
        ("arena", "cup"),
        ("play", ("resume", "r1", "ws://x:1/ws", "back to the arena")),
        ("arena", "cup"),
    ]
