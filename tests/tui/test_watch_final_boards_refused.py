"""`solrace watch`: when the final boards of a race (its replay) are refused, the line over the
boards and the message line say why in a player's words, as `solrace replay` says them
(client/tui/replay_text.py), never the protocol's code: "no final boards (race-not-over)" was
shown for a race the server did not have as finished yet, with the server's own "the race is
not finished" on the message line."""

from __future__ import annotations

import pytest
from must import must

from client.tui.replay_text import refusal_text

from .helpers import rendered, until, watching_a_race

CODES = ("race-not-over", "no-such-race", "private-race", "daily-open", "internal", "rate-limited")


@pytest.mark.timeout(120)
async def test_final_boards_of_a_race_not_over_are_refused_in_words(make_server, tmp_path):
    async with watching_a_race(make_server, tmp_path, "fours-up") as (server, a, b, race, app, pilot):
        # the final boards asked for while the race runs on: the server refuses race-not-over
        app.load_final_boards(race)
        info, status = app.query_one("#race-info"), app.query_one("#status")
        await until(pilot, lambda: "no final boards" in rendered(info), what="the refusal")
        assert "no final boards (the server has not closed the race yet)" in rendered(info)
        said = " ".join(rendered(status).split())
        assert said == f"Race {race} has not finished: its replay opens once it has.", said
        for shown in (rendered(info), said):
            assert "race-not-over" not in shown and "the race is not finished" not in shown
        assert must(app.model).status == "running"


@pytest.mark.parametrize("code", CODES)
def test_a_refused_replay_is_said_without_its_code(code: str) -> None:
    from client.tui.replay_text import NO_FINAL_BOARDS, no_final_boards_text

    message = {
        "internal": "server fault; the request had no effect",
        "rate-limited": "too many messages",
    }.get(code, "")
    for text in (no_final_boards_text(code, message), refusal_text(code, "r8a1c", message, flags=False)):
        assert code not in text, text
    assert no_final_boards_text("race-not-over") == f"no final boards ({NO_FINAL_BOARDS['race-not-over']})"
