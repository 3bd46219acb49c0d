"""Rematches away from the finished race's screen, against a real server in this process (bob
played through the client library): a rival's offer that comes once `menu` left the race shows
on the menu, with an Accept button that seats ada in the rematch, ready; Esc back to the race
keeps it for `accept`; an offer for any other race shows nowhere. Its "No thanks" hides the
offer and forgets it (no `accept` takes it later), and a new offer shows again. `solrace play
--rematch RACE` asks for the rematch of a race played before."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from textual.widgets import Button
from waiting import DEADLINE

from client.cli import play
from client.tui.menu import MenuScreen
from client.tui.net import connector, write_token
from client.tui.play_app import Intent, PlayApp
from protocol import messages as m

from .helpers import click_shown, player_id, until
from .test_rematch_tui import race_over, ready_in_rematch, status

pytestmark = pytest.mark.timeout(120)


def offered(app: PlayApp) -> bool:
    """The menu is on screen and shows a rematch offer."""
    screen = app.screen
    return isinstance(screen, MenuScreen) and screen.query_one("#menu-rematch").has_class("offered")


async def offer_on_the_menu(pilot: Any, app: PlayApp, bob: Any) -> tuple[str, m.RaceSnapshot]:
    """Ada's race with bob over, ada on the menu, and bob's rematch offer shown there: the race
    and the rematch's snapshot (bob's reply)."""
    old = await race_over(pilot, app, bob)
    await pilot.press(*"menu", "enter")
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
    asked: m.RaceSnapshot = await bob.request(m.Rematch(race=old))
    await until(pilot, lambda: offered(app), what="bob's offer on the menu")
    return old, asked


async def test_an_offer_that_comes_on_the_menu_shows_there_and_accept_takes_it(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(80, 24)) as pilot, connect(server.ws_url, name="bob") as bob:
        old = await race_over(pilot, app, bob)
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        # An offer for a race ada did not leave for this menu (the server sends none, so it is
        # handed in here): nowhere to show, nothing kept.
        app.on_server_event({"t": "rematch", "race": "r0", "rematch": "r9", "by": "p9", "name": "eve"})
        await pilot.pause()
        assert not offered(app) and app.rematch_offer is None

        asked = await bob.request(m.Rematch(race=old))
        await until(pilot, lambda: offered(app), what="bob's offer on the menu")
        assert (
            str(app.screen.query_one("#menu-rematch-text").render()) == f"bob offers a rematch of race {old}:"
        )

        # Esc: back to the race, where the offer stands for `accept`.
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, MenuScreen), what="back in the race")
        assert (
            status(app)
            == f"back in race {old} — 'accept' for the rematch, 'menu' for another race, ctrl+q to quit"
        )
        assert app.model.race_id == old and "Commands: accept analysis menu quit" in app.help_text()

        # The menu again shows the standing offer at once; its Accept seats ada, ready.
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: offered(app), what="the offer on the menu again")
        accept = app.screen.query_one("#accept-rematch")
        await until(pilot, lambda: app.screen.region.contains_region(accept.region), what="Accept on screen")
        await click_shown(pilot, "#accept-rematch")
        await until(pilot, lambda: ready_in_rematch(app, old), what="ready in the rematch joined")
        assert app.model.race_id == asked.race, app.model
        assert status(app).startswith(f"rematch {asked.race}: you are ready"), status(app)
        await bob.ready(asked.race)
        await until(pilot, lambda: app.model.status == "running", what="the rematch's start")


async def test_the_rematchs_own_event_before_the_seats_reply_does_not_put_it_behind(
    make_server, tmp_path
) -> None:
    """The join's published copy may reach ada before the join's reply (the reply waits on one
    more Redis write): the menu's empty model then takes the rematch's id from it. Accept must
    not count that race as the one left behind, whose late events are dropped: the rival's
    `ready` and the start would never show (CI, stop 40: ada ready, bob 'waiting' for 30 s)."""
    import msgspec

    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(80, 24)) as pilot, connect(server.ws_url, name="bob") as bob:
        old, asked = await offer_on_the_menu(pilot, app, bob)
        # The rematch's event, as its bus copy ahead of the join's reply would come.
        app.on_server_event(msgspec.to_builtins(asked))
        assert app.model.race_id == asked.race
        await click_shown(pilot, "#accept-rematch")
        await until(pilot, lambda: ready_in_rematch(app, old), what="ready in the rematch joined")
        assert asked.race not in app.races_left and old in app.races_left
        await bob.ready(asked.race)
        await until(pilot, lambda: app.model.status == "running", what="the rematch's start")


def whole_in_menu(app: PlayApp, selector: str) -> bool:
    """The menu's widget ``selector`` is drawn whole inside the menu's box (not cut off by it)."""
    screen = app.screen
    region = screen.query_one(selector).region
    return region.area > 0 and screen.query_one("#menu").region.contains_region(region)


async def test_no_thanks_hides_the_offer_and_forgets_it_until_a_new_one(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    app = PlayApp(connector(server.ws_url, "ada", str(tmp_path / "token")), Intent("create", "fours-up", 2))
    async with app.run_test(size=(80, 24)) as pilot, connect(server.ws_url, name="bob") as bob:
        old, asked = await offer_on_the_menu(pilot, app, bob)
        # Beside Accept, both whole in an 80x24 terminal.
        for button in ("#accept-rematch", "#decline-rematch"):
            await until(pilot, lambda b=button: whole_in_menu(app, b), what=f"{button} whole in the menu")
        assert str(app.screen.query_one("#decline-rematch", Button).label) == "No thanks"

        # No thanks: the offer hidden, the menu still on screen, the focus on a shown button.
        await click_shown(pilot, "#decline-rematch")
        await until(pilot, lambda: not offered(app), what="the offer hidden")
        menu = app.screen
        assert isinstance(menu, MenuScreen) and menu.rematch_offer is None and app.rematch_offer is None
        assert app.focused is not None and app.focused.id == "quick"

        # Forgotten: back in the race, `accept` takes nothing and the race names `rematch` again.
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, MenuScreen), what="back in the race")
        assert status(app) == (
            f"back in race {old} — 'rematch' for the same players again, 'menu' for another race, "
            "ctrl+q to quit"
        )
        assert "Commands: rematch analysis menu quit" in app.help_text()
        await pilot.press(*"accept", "enter")
        await until(
            pilot, lambda: status(app) == "no rematch is offered for this race", what="accept refused"
        )
        assert app.model.race_id == old and app.rematch_offer is None
        lobby = await bob.ready(asked.race)  # nobody joined bob's rematch
        assert [p.player for p in lobby.players] == [player_id(bob)], lobby

        # The menu again: the declined offer stays hidden.
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu again")
        menu = app.screen
        await until(pilot, lambda: menu.query_one("#quick").region.area > 0, what="the menu laid out")
        assert isinstance(menu, MenuScreen) and menu.rematch_offer is None and not offered(app)

        # bob's rematch leaves its lobby, and his next ask is a new rematch, offered anew: it
        # shows, and Accept takes it.
        await bob.start(asked.race)
        again = await bob.request(m.Rematch(race=old))
        assert again.race != asked.race
        await until(pilot, lambda: offered(app), what="bob's new offer on the menu")
        menu = app.screen
        assert isinstance(menu, MenuScreen) and menu.rematch_offer is not None
        assert menu.rematch_offer["rematch"] == again.race
        await until(pilot, lambda: whole_in_menu(app, "#accept-rematch"), what="Accept whole in the menu")
        await click_shown(pilot, "#accept-rematch")
        await until(pilot, lambda: ready_in_rematch(app, old), what="ready in the new rematch")
        assert app.model.race_id == again.race, app.model


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_the_rematch_flag_asks_for_the_rematch_of_a_race_played_before(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(countdown_ms=100)
    token = tmp_path / "token"
    async with connect(server.ws_url, name="bob") as bob:
        async with connect(server.ws_url, name="ada") as ada:  # ada's race, played before this run
            old = await ada.create("fours-up", seats=2)
            await bob.join(old.race)
            for c in (ada, bob):
                await c.ready(old.race)
            for c in (ada, bob):
                await c.wait_for(m.Started, lambda ev: ev.race == old.race, timeout=DEADLINE)
                await c.finish(old.race)
            await ada.wait_for(m.End, lambda ev: ev.race == old.race, timeout=DEADLINE)
            write_token(token, ada.token)
        app = play.build_app(parse("--rematch", old.race, "--url", server.ws_url, "--token-file", str(token)))
        async with app.run_test(size=(100, 40)) as pilot:
            await until(pilot, lambda: ready_in_rematch(app, old.race), what="ready in the rematch's lobby")
            new = app.model
            assert new.status == "lobby", new
            assert status(app).startswith(f"rematch {new.race_id}: you are ready"), status(app)
            offer = await bob.wait_for(m.RematchOffer, timeout=DEADLINE)
            assert (offer.race, offer.rematch, offer.name) == (old.race, new.race_id, "ada")


def test_the_rematch_flag_is_a_mode_of_its_own_and_needs_a_server() -> None:
    assert play.intent_from_args(parse("--rematch", "r1")) == Intent("rematch", race="r1")
    with pytest.raises(SystemExit):
        parse("--rematch", "r1", "--race", "r2")
    with pytest.raises(SystemExit, match="--offline"):
        play.build_app(parse("--rematch", "r1", "--offline"))
