"""With no race on screen (the menu, connecting, a refused join) the line under the board is
empty: it said "(no players yet)" under the menu, as if a race were waiting for players. A
race that has no players yet still says so."""

from __future__ import annotations

from client.tui.model import RaceModel
from client.tui.widgets import bars_text


def test_no_race_no_players_line() -> None:
    assert bars_text(RaceModel()).plain == ""
    assert bars_text(RaceModel(status="lobby", race_id="r1")).plain == "(no players yet)"
