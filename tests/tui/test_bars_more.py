"""A race of more players than the bars have rows for (8 players in the 4 rows a short
terminal, 80x24, gives them): the rows past the room were cut off with no sign that more
players exist, the player's own among them (seated last). `bars_text(rows=…)` keeps the
player's own bar and the leading rivals', and says how many more there are, and who."""

from __future__ import annotations

from textual.widgets import Static

from client.tui.model import PlayerRow, RaceModel
from client.tui.play_app import PlayApp
from client.tui.widgets import bars_text

from .helpers import never_connects, rendered, until


def race_of(players: int, me: str | None = "me") -> RaceModel:
    model = RaceModel(me=me, race_id="r1", game="racing-aces", status="running", total=156)
    rows = [PlayerRow(f"p{i}", f"rival{i}", home=i % 4, n=i, status="playing") for i in range(players - 1)]
    rows.append(PlayerRow("me", "me", home=0, n=1, status="playing"))  # seated last
    model.players = {row.player: row for row in rows}
    return model


def test_the_players_own_bar_and_a_more_mark_when_the_rows_run_out() -> None:
    lines = bars_text(race_of(8), width=20, rows=4).plain.split("\n")
    assert len(lines) == 4
    # the two leading rivals (3 cards home, then 2: the first seated of two), in seat order
    assert lines[0].startswith(" rival2 ") and lines[1].startswith(" rival3 ")
    assert lines[2].startswith("*me ")  # the player's own, in its seat's place
    assert lines[3] == " +5 more: rival0 0/156 · rival1 1/156 · rival4 0/156 · rival5 1/156 · rival6 2/156"


def test_a_spectator_sees_the_leaders() -> None:
    lines = bars_text(race_of(8, me=None), width=20, rows=4).plain.split("\n")
    assert [line.split()[0] for line in lines[:3]] == ["rival2", "rival3", "rival6"]
    assert lines[3] == " +5 more: rival0 0/156 · rival1 1/156 · rival4 0/156 · rival5 1/156 · me 0/156"


def test_every_bar_while_they_fit() -> None:
    for rows in (None, 8, 9):
        lines = bars_text(race_of(8), width=20, rows=rows).plain.split("\n")
        assert len(lines) == 8 and "more" not in lines[-1]
        assert lines[-1].startswith("*me ")


async def test_the_play_app_keeps_the_players_own_bar_at_80x24() -> None:
    app = PlayApp(never_connects)
    async with app.run_test(size=(80, 24)) as pilot:
        bars = app.query_one("#bars", Static)
        await until(pilot, lambda: app.screen_stack[0].has_class("short"), what="the short layout")
        app.model = race_of(8)
        app.redraw()
        await until(pilot, lambda: "+5 more" in rendered(bars), what="the bars drawn")
        assert "*me " in rendered(bars)
