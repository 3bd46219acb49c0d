"""The lobby's invitation in the terminal: the link stands alone on its line (copied whole,
and whole in 80 columns), and every other line fits 80 columns."""

from __future__ import annotations

import pytest

from client.tui.links import make_link
from client.tui.model import PlayerRow, RaceModel
from client.tui.race_text import lobby_text

from .test_recent_commands_copy import shell_args

URL = "ws://solrace.example:8765/ws"
RACE = "r760bf9a3094e54de"


@pytest.mark.parametrize("private", [False, True])
def test_the_link_is_a_line_of_its_own(private: bool) -> None:
    invite = "4IjHNzwUxnLBDimq0TKqQw" if private else None
    m = RaceModel(me="p1", race_id=RACE, game="fours-up", status="lobby", host="p1", seats=2)
    m.private, m.invite = private, invite
    m.players["p1"] = PlayerRow("p1", "ada")
    lines = lobby_text(m, URL).splitlines()
    link = make_link(URL, RACE, invite)
    assert link in lines
    assert all(len(line) <= 78 for line in lines if line != link), lines
    if not private:  # the race's server named (the command went to the default one), whole
        start = lines.index("invite:") + 1
        command = lines[start : start + 2]
        assert shell_args(command) == ["solrace", "play", "--join", RACE, "--url", URL], lines


def test_the_default_server_is_not_named_and_a_long_address_is_broken_between_arguments() -> None:
    m = RaceModel(me="p1", race_id=RACE, game="fours-up", status="lobby", host="p1", seats=2)
    m.players["p1"] = PlayerRow("p1", "ada")
    assert f"invite: solrace play --join {RACE}" in lobby_text(m, "ws://127.0.0.1:8765/ws").splitlines()
    far = "ws://a-rather-long-host-name.solrace.example.org:8765/ws"
    lines = lobby_text(m, far).splitlines()
    start = lines.index("invite:")
    assert lines[start + 1 : start + 3] == [f"solrace play --join {RACE} \\", f"  --url {far}"]


def test_a_full_lobby_invites_nobody() -> None:
    # Its invitation only earned a taker "every seat is taken": a public one may be watched.
    m = RaceModel(me="p1", race_id=RACE, game="fours-up", status="lobby", host="p1", seats=2)
    m.players["p1"], m.players["p2"] = PlayerRow("p1", "ada"), PlayerRow("p2", "bob")
    lines = lobby_text(m, URL).splitlines()
    assert not any("--join" in line or URL.removesuffix("/ws") in line for line in lines), lines
    assert f"every seat is taken (others may watch: solrace watch --race {RACE})" in lines
    assert all(len(line) <= 78 for line in lines), lines
    m.private, m.invite = True, "4IjHNzwUxnLBDimq0TKqQw"
    assert "every seat is taken" in lobby_text(m, URL).splitlines()


@pytest.mark.parametrize("rated", [False, True])
def test_the_queue_says_whether_a_bot_may_come(rated: bool) -> None:
    # A rated race seats no bot (server/handlers/rated.py): it promised one all the same.
    m = RaceModel(me="p1", game="fours-up", status="queued", rated=rated)
    text = lobby_text(m, URL)
    assert ("may seat a bot" in text) is not rated
    assert ("seats no bot" in text) is rated
