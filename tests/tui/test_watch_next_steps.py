"""`solrace watch` says what a spectator can do next: with no live race, that the list fills
itself once one starts (it said "0 live public race(s) — Enter: spectate" over an empty
table); once a watched race ends, the commands that replay it move by move and show where
each win was lost (the spectator had no word of either: "Your races" lists only races one
played)."""

from __future__ import annotations

import pytest

from client.tui.net import connector
from client.tui.watch_app import WatchApp

from .helpers import rendered, two_player_race, until
from .test_recent_commands_copy import command_rows, shell_args


def rows(widget) -> list[str]:
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


@pytest.mark.timeout(120)
async def test_an_empty_list_and_a_finished_race_say_what_next(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server()
    url = server.ws_url
    app = WatchApp(connector(url, "watcher", str(tmp_path / "token")), refresh_s=0.2, server_url=url)
    async with app.run_test(size=(80, 24)) as pilot:
        title = app.query_one("#list-title")
        await until(pilot, lambda: "no live public race now" in rendered(title), what="the empty list")
        assert "Enter" not in rendered(title)
        async with connect(url, name="alice") as a, connect(url, name="bob") as b:
            race = await two_player_race(a, b, "fours-up")
            await until(pilot, lambda: any(r.get("race") == race for r in app.races), what="listed")
            assert "1 live public race — Enter: spectate" in rendered(title)
            await pilot.press("enter")
            await until(pilot, lambda: app.model is not None and app.model.race_id == race, what="spectating")
            await a.finish(race)
            await b.finish(race)
            result = app.query_one("#race-result")
            await until(pilot, lambda: "Final ranking" in rendered(result), what="the ranking")
            # each command copied whole from the screen at 80 columns: rows of its own, broken
            # between arguments only (they wrapped mid-argument)
            await until(pilot, lambda: "solrace analyze" in " ".join(rows(result)), what="drawn")
            for verb in ("replay", "analyze"):
                mine = command_rows(rows(result), verb)
                assert all(len(row) <= result.content_region.width for row in mine)
                assert shell_args(mine) == ["solrace", verb, "--url", url, "--race", race]


@pytest.mark.timeout(60)
async def test_the_empty_list_of_one_game_is_said_whole_at_80x24(make_server, tmp_path):
    """`solrace watch --game double-aces-and-kings` with no live race: the title's one row cut
    it at the screen's edge ("… once it starts (solrace "); it takes the rows it needs."""
    server = await make_server()
    url = server.ws_url
    app = WatchApp(
        connector(url, "watcher", str(tmp_path / "token")), game="double-aces-and-kings", server_url=url
    )
    async with app.run_test(size=(80, 24)) as pilot:
        title = app.query_one("#list-title")
        await until(pilot, lambda: "no live public race" in rendered(title), what="the empty list")

        def shown() -> str:
            strips = app.screen._compositor.render_strips()[title.region.y : title.region.bottom]
            return " ".join(" ".join("".join(seg.text for seg in s) for s in strips).split())

        await until(
            pilot, lambda: shown().endswith("once it starts (solrace play)"), what=f"whole: {shown()}"
        )


def test_the_counts_are_said_in_words() -> None:
    """ "2 live public races", "waiting for 1 rival", "3 arenas": not "race(s)", "rival(s)"."""
    from client.tui.arena_view import arenas_title
    from client.tui.intent import Intent
    from client.tui.race_text import started_text
    from client.tui.watch_text import list_title

    assert list_title(2, " of Fours Up").startswith("[b]2 live public races of Fours Up[/b]")
    assert started_text(Intent("quick", "fours-up", 2), {}).startswith("waiting for 1 rival for Fours Up")
    assert started_text(Intent("quick", "fours-up", 3), {}).startswith("waiting for 2 rivals for")
    assert arenas_title(1).startswith("[b]1 arena[/b]") and arenas_title(13).startswith("[b]13 arenas[/b]")
