"""Rated races from the terminal against a real server (in this process) and a real Redis
(docs/protocol.md §9): `solrace play --game G --quick --rated` of a logged-in account
waits in the rating pool, the race screen marks the race rated and shows the rating
change once the `rating` event comes, and Your races lists the race with it. A guest
asking for a rated race is told how to log in."""

from __future__ import annotations

import argparse
import asyncio

import pytest
import waiting
from textual.widgets import DataTable
from waiting import DEADLINE

from client.cli import play
from client.library.connection import connect
from client.tui.intent import Intent
from client.tui.menu import MenuScreen
from client.tui.net import connector, write_token
from client.tui.play_app import PlayApp
from client.tui.race_text import rating_change_text
from client.tui.ratings_text import rated_needs_account
from client.tui.recent_screen import RecentScreen
from client.tui.recent_text import rating_cell

from .helpers import CHEAP_HASH, account_token, click_shown, rendered, until

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_a_rated_quick_match_from_the_terminal(make_server, tmp_path) -> None:
    server = await make_server(**CHEAP_HASH)
    url = server.ws_url
    ada_token, bob_token = await asyncio.gather(account_token(url, "ada"), account_token(url, "bob"))
    path = tmp_path / "token"
    write_token(path, ada_token)
    args = parse("--game", GAME, "--quick", "--rated", "--url", url, "--token-file", str(path))
    assert play.rated_step(args) is None  # an account: on to the race
    app = play.build_app(args)
    async with connect(url, token=bob_token) as bob, app.run_test(size=(130, 45)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="ada in the rating pool")
        assert app.model.rated and "rated" in rendered(app.query_one("#status"))
        assert "Rated quick match" in rendered(app.query_one("#board"))

        queued = await bob.quick(GAME, rated=True)
        assert queued.rated
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")
        race = app.model.race_id
        assert race is not None and app.model.rated
        assert "rated" in rendered(app.query_one("#info"))  # the race screen's marker
        await bob.wait_for("start", lambda ev: ev.race == race, timeout=DEADLINE)

        await pilot.press(*"draw", "enter")
        await until(pilot, lambda: app.model.n == 1, what="a move acked")
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.my_status == "finished", what="ada declared")
        await bob.finish(race)

        # The end, then the `rating` event: the result shows ada's change.
        await until(pilot, lambda: app.model.rating is not None, what="the rating event")
        change = app.model.rating
        assert change is not None and change["player"] == app.model.me and change["rank"] == 1
        result = rendered(app.query_one("#result"))
        assert result.startswith("Final ranking · rated") and rating_change_text(change) in result
        assert "your rating " in rendered(app.query_one("#status"))
        assert change["after"]["races"] == 1 and change["after"]["provisional"]

        # Your races: the rated race with its rating change (written beside it once rated).
        async def rated() -> bool:
            async with connect(url, token=ada_token) as ada:
                races = (await ada.recent()).races
            return bool(races) and races[0].after is not None

        await waiting.until(rated, what="the rating change in ada's recent races")
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert app.screen.query("#rated"), "an account's menu has the rated box"
        await click_shown(pilot, "#recent")
        screen: RecentScreen = await until(
            pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen, what="Your races"
        )
        await until(
            pilot, lambda: screen.query_one("#recent-races", DataTable).row_count == 1, what="the row"
        )
        cells = [str(c) for c in screen.query_one("#recent-races", DataTable).get_row_at(0)]
        assert cells[2] == "quick" and cells[3] == "1 of 2"
        assert cells[6] == rating_cell(screen.races[0]) and cells[6][0] in "+-0"  # the change
        text = rendered(screen.query_one("#recent-detail"))
        assert f"race {race}" in text and "rating " in text and "→" in text
        assert "your list lasts" not in rendered(screen.query_one("#recent-title"))  # an account's


async def test_a_guest_asking_for_a_rated_race_is_told_how_to_log_in(make_server, tmp_path) -> None:
    """The server refuses the guest (`not-logged-in`); the race screen says how to log in."""
    server = await make_server()
    app = PlayApp(
        connector(server.ws_url, "visitor", str(tmp_path / "token")), Intent("quick", GAME, 2, rated=True)
    )
    async with app.run_test(size=(130, 45)) as pilot:
        said = rated_needs_account(GAME, "quick")
        await until(pilot, lambda: said in rendered(app.query_one("#status")), what="the sentence")
        assert app.model.status == "none"  # not queued anywhere
