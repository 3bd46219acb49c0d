"""A timed-out player's "time up" in the terminal replay comes at their deadline, which the
server's `replay` gives as `ended_ms` (docs/protocol.md §3): not at the race's last move or
declaration (its latest moment known, which stood in for it), nor, for a berserk arena
player on half the clock, at the end of everyone else's race."""

from __future__ import annotations

import random

from client.tui.replay_model import Cursor, at_end, build_replay, end_ms, jump, step, switch
from client.tui.replay_screen import ReplayApp, ReplayScreen
from client.tui.replay_text import status_text
from client.tui.text import duration

from .helpers import rendered, until
from .test_replay_model import SEED, document, random_moves

GAME = "fours-up"


def timed_out_race(fast_end: int | None, slow_end: int | None) -> tuple:
    """ "fast" (60 moves 0.3 s apart: the last at 18.0 s) and "slow" (10 moves 0.7 s apart),
    both out of time, at the ends (ms into the race) the document says (None: it does not);
    the replay and their places."""
    logs = {
        "fast": random_moves(GAME, SEED, 60, random.Random(2)),
        "slow": random_moves(GAME, SEED, 10, random.Random(1)),
    }
    assert len(logs["fast"]) == 60 and len(logs["slow"]) == 10
    doc = document(GAME, logs, step_ms={"fast": 300})
    for p in doc["players"]:
        ended = fast_end if p["player"] == "fast" else slow_end
        if ended is not None:
            p["ended_ms"] = ended
    replay = build_replay(doc)
    return replay, replay.index_of("fast"), replay.index_of("slow")


def test_time_up_is_at_the_deadline_not_at_the_last_move() -> None:
    replay, fast, slow = timed_out_race(30_000, 30_000)
    assert replay.players[fast].frames[-1].at_ms == 18_000  # the race's last event
    assert end_ms(replay, slow) == end_ms(replay, fast) == 30_000

    # At fast's last move, 18.0 s: slow's time is not up, nor fast's own.
    last = Cursor(fast, 60, 18_000)
    assert not at_end(replay, last)
    assert not status_text(replay, last).endswith("time up")
    assert "time up" not in status_text(replay, switch(replay, last, slow))
    # A step on from the last move is the deadline, with its time.
    end = step(replay, last, 1)
    assert end == jump(replay, last, True) == Cursor(fast, 60, 30_000) and at_end(replay, end)
    assert status_text(replay, end).endswith(f"· {duration(30_000)} into the race · time up")
    assert status_text(replay, switch(replay, end, slow)).endswith(
        f"· {duration(30_000)} into the race · time up"
    )


def test_a_berserk_player_is_out_of_time_at_their_own_deadline() -> None:
    """slow berserked (half of a 20 s clock: out at 10.0 s) while fast played on to 18.0 s: at
    12.0 s slow's time is up, though the race went on."""
    replay, fast, slow = timed_out_race(20_000, 10_000)
    assert end_ms(replay, slow) == 10_000
    at_12 = Cursor(fast, 40, 12_000)
    assert status_text(replay, switch(replay, at_12, slow)).endswith(
        f"· {duration(12_000)} into the race · time up"
    )
    assert jump(replay, Cursor(slow), True) == Cursor(slow, 10, 10_000)


def test_a_document_without_ended_ms_keeps_the_latest_moment_known() -> None:
    """A daily's document (or an older server's reply) has no `ended_ms`: the race's latest
    moment known stands in for a timeout's deadline, as before."""
    replay, fast, slow = timed_out_race(None, None)
    assert end_ms(replay, slow) == end_ms(replay, fast) == 18_000


async def test_the_viewer_shows_time_up_at_the_deadline() -> None:
    replay, fast, _slow = timed_out_race(30_000, 30_000)
    app = ReplayApp(replay, fast)
    async with app.run_test(size=(130, 45)) as pilot:
        screen = await until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen)
        status = screen.query_one("#replay-status")
        await pilot.press("end")
        await until(
            pilot,
            lambda: rendered(status).endswith(f"· {duration(30_000)} into the race · time up"),
            what="time up at the deadline",
        )
        assert "move 60 of 60" in rendered(status)
        await pilot.press("left", "right")  # back one move, then on: the last move, at 18.0 s
        await until(
            pilot, lambda: rendered(status).endswith(f"· {duration(18_000)} into the race"), what="18 s"
        )
