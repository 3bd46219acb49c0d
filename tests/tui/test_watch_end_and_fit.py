"""`solrace watch` against a real server (in this process), at 80 columns: the final boards
once a race ends, a race list whose every column stays on the screen, and a footer that
shows only the keys of the view at hand."""

from __future__ import annotations

import pytest
from must import must

from client.tui.net import connector
from client.tui.watch_app import WatchApp
from client.tui.watch_text import race_list
from client.tui.widgets import BoardView
from protocol import rules

from .helpers import footer_keys, rendered, until, watching_a_race


def view_after(game: str, seed: str, moves: list[str]) -> str:
    g = rules.deal(game, seed)
    for move in moves:
        g.play(move)
    return g.view_text()


@pytest.mark.timeout(120)
async def test_the_final_boards_show_once_the_race_ends(make_server, tmp_path):
    """The server sends boards only while the race runs, SPECTATOR_DELAY late: with a delay
    longer than the race, no board came before it ended, and none after. Once it ends the
    replay has them all, every card face up."""
    async with watching_a_race(make_server, tmp_path, "racing-aces") as (server, a, b, race, app, pilot):
        await until(pilot, lambda: footer_keys(app).get("back to the list"), what="the race's keys")
        assert "refresh list" not in footer_keys(app)
        for _ in range(3):
            await a.move(race, "draw")
        await b.move(race, "draw")
        await until(pilot, lambda: must(app.model).players[a.player].n == 3, what="progress")
        assert not must(app.model).boards  # the delay holds them back
        await a.finish(race)
        await b.finish(race)
        await until(pilot, lambda: len(app.query(BoardView)) == 2, what="the final boards")
        m = must(app.model)
        assert m.status == "finished" and m.seed
        assert m.boards[a.player] == (3, view_after("racing-aces", m.seed, ["draw"] * 3))
        assert m.boards[b.player] == (1, view_after("racing-aces", m.seed, ["draw"]))
        assert all("??" not in view for _n, view in m.boards.values())
        titles = [rendered(t) for t in app.query(".board-title")]
        assert any(t.startswith("alice · 3 moves") for t in titles)
        assert any(t.startswith("bob · 1 move ·") for t in titles)
        assert "final boards" in rendered(app.query_one("#race-info"))
        # The ranking takes the bars' place, under a rule: at 80x24 the rows go to the boards.
        result, bars = app.query_one("#race-result"), app.query_one("#race-bars")
        await until(pilot, lambda: result.display and not bars.display, what="the ranking for the bars")
        assert "alice" in rendered(result) and "bob" in rendered(result)
        assert result.styles.border_top[0] and not result.styles.border_bottom[0]
        await pilot.press("escape")
        await until(pilot, lambda: app.model is None, what="back to the list")
        await until(pilot, lambda: "refresh list" in footer_keys(app), what="the list's keys")
        assert "back to the list" not in footer_keys(app)


LONG_NAMES = ["Bartholomew Longname One", "Bartholomew Longname Two", "Bartholomew Longname 3"]


def test_the_race_list_fits_80_columns_the_players_give_way():
    races = [
        {
            "race": "r0123456789abcdef",
            "game": "double-aces-and-kings",
            "status": "countdown",
            "starts_at": 10_000,
            "total": 208,
            "players": [{"name": n, "home": 0} for n in LONG_NAMES],
            "spectators": 12,
        }
    ]
    widths, rows = race_list(races, 0, 78)  # 80 columns, less the scrollbar
    assert sum(widths) + 2 * len(widths) <= 78
    race, game, status, when, players, watchers = rows[0]
    assert (race, status, when, watchers) == ("r0123456789abcdef", "countdown", "in 10s", "12")
    # the players on a second line, then cut
    assert players.count("\n") == 1 and players.endswith("…") and game.startswith("Double")


def test_a_race_of_two_names_both_players_at_80_columns():
    """The players go on a second line before they are cut: "alice 0/156, …" was all a
    spectator choosing a race read of a race of two."""
    race = {"race": "r0123456789abcdef", "game": "racing-aces", "status": "running", "deadline": 597_000}
    race |= {"total": 156, "players": [{"name": "alice", "home": 0}, {"name": "bob", "home": 3}]}
    widths, rows = race_list([race], 0, 78)
    assert sum(widths) + 2 * len(widths) <= 78
    assert rows[0][4].split("\n") == ["alice 0/156,", "bob 3/156"], rows


@pytest.mark.timeout(120)
async def test_the_race_list_at_80_columns_shows_every_column(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server()
    async with (
        connect(server.ws_url, name=LONG_NAMES[0]) as a,
        connect(server.ws_url, name=LONG_NAMES[1]) as b,
        connect(server.ws_url, name=LONG_NAMES[2]) as c,
    ):
        race = (await a.create("double-aces-and-kings", seats=4)).race
        await b.join(race)
        await c.join(race)
        app = WatchApp(connector(server.ws_url, "watcher", str(tmp_path / "token")), refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.races, what="listed")
            table = app.query_one("#races")

            def line() -> str:
                return table.render_line(1).text  # the first row, under the header

            await until(pilot, lambda: race in line(), what="the row drawn")
            header = table.render_line(0).text
            for column in ("race", "game", "status", "clock", "players", "watchers"):
                assert column in header
            second = table.render_line(2).text  # the row's players' second line
            assert "lobby" in line() and "Bartholomew" in line() and "…" in second
            assert line().rstrip().endswith("0")  # the watchers' count, on the screen
            await until(pilot, lambda: footer_keys(app).get("refresh list"), what="the list's keys")
            assert "back to the list" not in footer_keys(app)
